import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { defaultChangedIn, showFor } from '../../helpers/displayOptions';
import { toRawBlock, toSimpleBlock } from '../../helpers/blockRecords';
import { runPerItem } from '../../helpers/perItem';
import { blockFilterQuery, blockFiltersAndOutput } from './filters';
import { fetchReport, pagingProperties } from './paging';

export const BLOCK_ERROR_DESCRIPTIONS = {
	400: 'The service refused the filters. Check the dates, the statuses and the reasons in Filters.',
};

export const description: INodeProperties[] = showFor('report', 'getBlocks', [
	...pagingProperties(),
	blockFiltersAndOutput,
	// Version 1.1 simplifies by default, as the trigger does.
	...defaultChangedIn(
		1.1,
		{
			displayName: 'Simplify',
			name: 'simplify',
			type: 'boolean',
			default: true,
			description:
				'Whether to return a flat item per block (contact ID, e-mail, external ID, time, statuses, reason, fields by name) instead of the full record. Block times have no zone in the service; they are read in the workflow’s timezone.',
		},
		{ before: false, since: true },
	),
]);

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const timeZone = this.getTimezone();
	return await runPerItem.call(this, items, async (itemIndex) => {
		const query = blockFilterQuery(this, itemIndex);
		const simplify = this.getNodeParameter('simplify', itemIndex) as boolean;
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
