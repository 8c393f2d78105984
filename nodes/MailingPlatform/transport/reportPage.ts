import type { IDataObject } from 'n8n-workflow';

import type { ErrorDescriptions, QueryParameters, ServiceContext } from './index';
import { readPaging, xmlRequest } from './index';
import type { Page } from './paging';

export interface ReportRequest {
	path: string[];
	query: QueryParameters;
	/** The wrapper element of the page, e.g. `blocks`. */
	listElement: string;
	/** The input item asking, for error messages; none for the trigger's polls. */
	itemIndex?: number;
	errorDescriptions?: ErrorDescriptions;
}

/** One page of a paged report: its records, the paging headers and the body as received. */
export async function fetchReportPage(
	this: ServiceContext,
	request: ReportRequest,
	pageIndex: number,
	pageSize: number,
): Promise<Page<IDataObject>> {
	const { data, response } = await xmlRequest.call(this, {
		method: 'GET',
		path: request.path,
		query: { ...request.query, page_index: pageIndex, page_size: pageSize },
		repeatable: true,
		itemIndex: request.itemIndex,
		errorDescriptions: request.errorDescriptions,
	});
	const records = data[request.listElement];
	return {
		records: Array.isArray(records) ? (records as IDataObject[]) : [],
		paging: readPaging(response.headers),
		body: response.body,
	};
}
