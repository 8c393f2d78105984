import type { IDataObject } from 'n8n-workflow';

import type { ErrorDescriptions, QueryParameters, ServiceContext } from '../../transport';
import { readPageCount, xmlRequest } from '../../transport';
import type { PageFetcher } from './paging';

interface ReportRequest {
	path: string[];
	query: QueryParameters;
	/** The wrapper element of the page, e.g. `blocks`. */
	listElement: string;
	/** The input item asking, for error messages; none for the trigger's polls. */
	itemIndex?: number;
	errorDescriptions?: ErrorDescriptions;
}

/**
 * The pages of a paged report: each page's records as `shape` makes them, the page count the
 * service gave and the body as received. A failed page's error names the page.
 */
export function reportPages<T>(
	context: ServiceContext,
	request: ReportRequest,
	shape: (record: IDataObject) => T,
): PageFetcher<T> {
	return async (pageIndex, pageSize, pageCount) => {
		const { data, response } = await xmlRequest.call(context, {
			method: 'GET',
			path: request.path,
			query: { ...request.query, page_index: pageIndex, page_size: pageSize },
			repeatable: true,
			itemIndex: request.itemIndex,
			errorDescriptions: request.errorDescriptions,
			part: pageCount === undefined ? `page ${pageIndex}` : `page ${pageIndex} of ${pageCount}`,
		});
		const records = data[request.listElement];
		return {
			records: Array.isArray(records) ? (records as IDataObject[]).map(shape) : [],
			pageCount: readPageCount(response.headers),
			body: response.body,
		};
	};
}
