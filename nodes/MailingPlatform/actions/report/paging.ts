import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { QueryParameters, ServiceContext } from '../../transport';
import { readPaging, xmlRequest } from '../../transport';
import type { Page } from '../../transport/paging';
import { fetchAllPages } from '../../transport/paging';

/** Return All / Limit, as on every n8n node that lists records. */
export function pagingProperties(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

export interface ReportRequest {
	path: string[];
	query: QueryParameters;
	/** The wrapper element of the page, e.g. `blocks`. */
	listElement: string;
	/** The input item asking, for error messages; none for the trigger's polls. */
	itemIndex?: number;
	errorDescriptions?: Record<number, string>;
}

/** One page of a report: its records, the paging headers and the body as received. */
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

/** Every record of a paged report (or up to the item's Limit), in the service's order. */
export async function fetchReport(
	this: IExecuteFunctions,
	request: ReportRequest & { itemIndex: number },
): Promise<IDataObject[]> {
	const { itemIndex } = request;
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex, 50) as number);
	return await fetchAllPages(
		async (pageIndex, pageSize) => await fetchReportPage.call(this, request, pageIndex, pageSize),
		{ limit },
	);
}
