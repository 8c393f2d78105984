import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { toSimpleBlock } from './blockRecords';
import type { FailurePolicy, OperationResult } from '../../helpers/itemResults';
import { runPerItem } from '../../helpers/itemResults';
import { platformTimeZone } from '../../helpers/timeZone';
import { parameter } from '../../helpers/parameters';
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

export async function execute(this: IExecuteFunctions, policy: FailurePolicy): Promise<OperationResult> {
	return await runPerItem(this, policy, async (itemIndex) => {
		const timeZone = await platformTimeZone.call(this);
		const query = blockFilterQuery(this, itemIndex);
		const simplify = parameter(this, 'simplify', itemIndex, true);
		const blocks = await fetchReport.call(this, itemIndex, blockPages(this, query, timeZone, itemIndex));
		return simplify ? blocks.map(toSimpleBlock) : blocks;
	});
}
