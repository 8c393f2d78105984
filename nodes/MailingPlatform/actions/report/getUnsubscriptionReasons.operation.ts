import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { runPerItem } from '../../helpers/perItem';
import { reportPages } from '../../transport/reportPage';
import { periodFilters, periodQuery } from './filters';
import { fetchReport, pagingProperties } from './paging';

export const description: INodeProperties[] = showFor('report', 'getUnsubscriptionReasons', [
	...pagingProperties(),
	{
		displayName: 'Order By',
		name: 'orderBy',
		type: 'options',
		options: [
			{ name: 'Count', value: 'count' },
			{ name: 'Name', value: 'name' },
		],
		default: 'count',
		description: 'Whether reasons are sorted by how often they were given or by their name',
	},
	{
		displayName: 'Ascending',
		name: 'ascending',
		type: 'boolean',
		default: false,
		description:
			'Whether to sort from the lowest to the highest count (or A to Z) instead of the most frequent (or Z to A) first',
	},
	periodFilters,
]);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runPerItem.call(this, items, async (itemIndex) => {
		const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
		const request = {
			path: ['reports', 'unsubscriptions', 'reasons'],
			query: {
				...periodQuery(filters, this.getTimezone()),
				order: this.getNodeParameter('orderBy', itemIndex, 'count') as string,
				asc: this.getNodeParameter('ascending', itemIndex) as boolean,
			},
			listElement: 'unsubscription_reasons',
			itemIndex,
			errorDescriptions: { 400: 'The service refused the request. Check From, To and Order By.' },
		};
		return await fetchReport.call(
			this,
			itemIndex,
			reportPages(this, request, (entry) => ({ reason: entry.reason ?? null, count: entry.count ?? null })),
		);
	});
}
