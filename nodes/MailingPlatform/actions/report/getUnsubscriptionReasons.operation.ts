import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import type { FailurePolicy, OperationResult } from '../../helpers/itemResults';
import { runPerItem } from '../../helpers/itemResults';
import { parameter } from '../../helpers/parameters';
import { reportPages } from './reportPages';
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

export async function execute(this: IExecuteFunctions, policy: FailurePolicy): Promise<OperationResult> {
	return await runPerItem(this, policy, async (itemIndex) => {
		const filters = parameter<IDataObject>(this, 'filters', itemIndex, {});
		const request = {
			path: ['reports', 'unsubscriptions', 'reasons'],
			query: {
				...periodQuery(filters, this.getTimezone()),
				order: parameter(this, 'orderBy', itemIndex, 'count'),
				asc: parameter(this, 'ascending', itemIndex, false),
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
