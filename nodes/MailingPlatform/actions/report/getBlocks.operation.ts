import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { toSimpleBlock } from '../../helpers/blockRecords';
import { runPerItem } from '../../helpers/perItem';
import { platformTimeZone } from '../../helpers/timeZone';
import { blockPages } from './blockPages';
import { blockFilterQuery, blockFiltersAndOutput } from './filters';
import { fetchReport, pagingProperties } from './paging';

export const description: INodeProperties[] = showFor('report', 'getBlocks', [
	...pagingProperties(),
	blockFiltersAndOutput,
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: true,
		description:
			'Whether to return a flat item per block (contact ID, e-mail, external ID, time, statuses, reason, fields by name) instead of the full record. Block times have no zone in the service; they are read in the credential’s Platform Time Zone.',
	},
]);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runPerItem.call(this, items, async (itemIndex) => {
		const timeZone = await platformTimeZone.call(this);
		const query = blockFilterQuery(this, itemIndex);
		const simplify = this.getNodeParameter('simplify', itemIndex) as boolean;
		const blocks = await fetchReport.call(this, itemIndex, blockPages(this, query, timeZone, itemIndex));
		return simplify ? blocks.map(toSimpleBlock) : blocks;
	});
}
