import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { isPlainObject } from '../../helpers/values';
import type { FailurePolicy, OperationResult } from '../../helpers/itemResults';
import { runPerItem } from '../../helpers/itemResults';
import { describeRequest, xmlRequest } from '../../transport';
import { serviceError } from '../../transport/errors';
import { oneLine } from '../../transport/serviceText';
import { BLOCK_FILTER_ERRORS, blockFilterQuery, blockFilters } from './filters';

export const description: INodeProperties[] = showFor('report', 'countBlocks', [blockFilters]);

/**
 * The spec leaves the count's body open, so the shallowest `count` element is taken, alone
 * (`<count>7</count>`) or inside wrappers beside other elements. An empty body has none: it is
 * refused rather than read as 0, which would look like a true answer.
 */
function findCount(data: IDataObject): number | undefined {
	let level: IDataObject[] = [data];
	while (level.length > 0) {
		const holder = level.find((element) => 'count' in element);
		// The XML reader makes a whole `count` a number; anything else is no count.
		if (holder !== undefined) return typeof holder.count === 'number' && holder.count >= 0 ? holder.count : undefined;
		level = level.flatMap((element) => Object.values(element).filter(isPlainObject));
	}
	return undefined;
}

export async function execute(this: IExecuteFunctions, policy: FailurePolicy): Promise<OperationResult> {
	return await runPerItem(this, policy, async (itemIndex) => {
		const request = {
			method: 'GET',
			path: ['reports', 'blocks', 'count'],
			query: blockFilterQuery(this, itemIndex),
			repeatable: true,
			itemIndex,
			errorDescriptions: BLOCK_FILTER_ERRORS,
		} as const;
		const { data, response } = await xmlRequest.call(this, request);
		const count = findCount(data);
		if (count !== undefined) return { count };
		const answered = oneLine(response.body);
		throw serviceError(
			this,
			{
				message: `The service's answer to ${describeRequest(request)} holds no count`,
				description: `${answered === '' ? 'It answered with an empty body.' : `It answered: ${answered}`} If this persists, report it to the package maintainers.`,
				httpCode: response.statusCode,
			},
			itemIndex,
		);
	});
}
