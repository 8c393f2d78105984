import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { PageFetcher } from '../../transport/paging';
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

/** Every record of a paged report, or up to the item's Limit, in the service's order. */
export async function fetchReport(
	this: IExecuteFunctions,
	itemIndex: number,
	fetchPage: PageFetcher<IDataObject>,
): Promise<IDataObject[]> {
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : (this.getNodeParameter('limit', itemIndex, 50) as number);
	return await fetchAllPages(fetchPage, { limit });
}

