import type { IDataObject } from 'n8n-workflow';

import { toRawBlock } from './blockRecords';
import type { QueryParameters, ServiceContext } from '../../transport';
import type { PageFetcher } from './paging';
import { reportPages } from './reportPages';
import { BLOCK_FILTER_ERRORS } from './filters';

/**
 * Pages of the block report (GET reports/blocks) matching `query`, as Get Blocks and the
 * trigger read it: each block as `toRawBlock` makes it, its times read in `timeZone` (the
 * platform account's). `itemIndex` is the input item asking, if any.
 */
export function blockPages(
	context: ServiceContext,
	query: QueryParameters,
	timeZone: string,
	itemIndex?: number,
): PageFetcher<IDataObject> {
	return reportPages(
		context,
		{ path: ['reports', 'blocks'], query, listElement: 'blocks', itemIndex, errorDescriptions: BLOCK_FILTER_ERRORS },
		(block) => toRawBlock(block, timeZone),
	);
}
