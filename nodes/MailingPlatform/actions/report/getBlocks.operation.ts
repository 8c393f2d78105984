import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { toRawBlock, toSimpleBlock } from '../../helpers/blockRecords';
import { runPerItem } from '../../helpers/perItem';
import { blockFilterQuery, blockFilters } from './filters';
import { fetchReport, pagingProperties } from './paging';

export const BLOCK_ERROR_DESCRIPTIONS = {
	400: 'The service refused the filters. Check the dates, the statuses and the reasons in Filters.',
};

export const description: INodeProperties[] = showFor('report', 'getBlocks', [
	...pagingProperties(),
	blockFilters,
	{
		displayName: 'Simplify',
		name: 'simplify',
		type: 'boolean',
		default: false,
		description:
			'Whether to return a flat item per block (contact ID, e-mail, external ID, time, statuses, reason, fields by name) instead of the full record. Block times have no zone in the service; they are read in the workflow’s timezone.',
	},
]);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const timeZone = this.getTimezone();
	return await runPerItem.call(this, items, async (itemIndex) => {
		const query = blockFilterQuery(this, itemIndex);
		const simplify = this.getNodeParameter('simplify', itemIndex, false) as boolean;
		const blocks = await fetchReport.call(this, {
			path: ['reports', 'blocks'],
			query,
			listElement: 'blocks',
			itemIndex,
			errorDescriptions: BLOCK_ERROR_DESCRIPTIONS,
		});
		return blocks.map((block) => {
			const raw = toRawBlock(block, timeZone);
			return simplify ? toSimpleBlock(raw) : raw;
		});
	});
}
