import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { QueryParameters, ServiceContext } from '../transport';
import type { PageFetcher } from '../transport/paging';
import { fetchReportPage } from '../transport/reportPage';
import { toRawBlock } from './blockRecords';

/** The block report (GET reports/blocks) as Get Blocks and the trigger read it. */

export const statusOptions = [
	{ name: 'Allowed', value: 'allowed' },
	{ name: 'Blocked', value: 'blocked' },
];

const reasonOptions = [
	{ name: 'Blacklist', value: 'blacklist' },
	{ name: 'Bounce Policy', value: 'bounce_policy' },
];

export const newStatusFilter: INodeProperties = {
	displayName: 'New Status',
	name: 'newStatus',
	type: 'options',
	options: statusOptions,
	default: 'blocked',
	description: 'Only changes to this status',
};

export const reasonsFilter: INodeProperties = {
	displayName: 'Reasons',
	name: 'reasons',
	type: 'multiOptions',
	options: reasonOptions,
	default: [],
	description: 'Only changes with one of these reasons',
};

export const BLOCK_ERROR_DESCRIPTIONS = {
	400: 'The service refused the filters. Check the dates, the statuses and the reasons in Filters.',
};

/**
 * Pages of blocks matching `query`, each block as `toRawBlock` makes it, its times read in
 * `timeZone` (the platform account's). `itemIndex` is the input item asking, if any.
 */
export function blockPages(
	context: ServiceContext,
	query: QueryParameters,
	timeZone: string,
	itemIndex?: number,
): PageFetcher<IDataObject> {
	return async (pageIndex, pageSize) => {
		const page = await fetchReportPage.call(
			context,
			{ path: ['reports', 'blocks'], query, listElement: 'blocks', itemIndex, errorDescriptions: BLOCK_ERROR_DESCRIPTIONS },
			pageIndex,
			pageSize,
		);
		return { ...page, records: page.records.map((block) => toRawBlock(block, timeZone)) };
	};
}
