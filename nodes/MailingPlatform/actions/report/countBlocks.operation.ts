import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { BLOCK_ERROR_DESCRIPTIONS } from '../../helpers/blockReport';
import { showFor } from '../../helpers/displayOptions';
import { isPlainObject } from '../../helpers/objects';
import { runPerItem } from '../../helpers/perItem';
import { apiRequest, describeRequest } from '../../transport';
import { serviceError } from '../../transport/errors';
import { parseXml } from '../../transport/xml';
import { blockFilterQuery, blockFilters } from './filters';

export const description: INodeProperties[] = showFor('report', 'countBlocks', [blockFilters]);

/** A count wherever the answer holds one: `<count>7</count>`, `{"count":7}`, `7`, or one wrapper around those. */
function findCount(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
	if (typeof value === 'string') return /^\d+$/.test(value.trim()) ? findCount(Number(value.trim())) : undefined;
	if (!isPlainObject(value)) return undefined;
	if ('count' in value) return findCount(value.count);
	const entries = Object.values(value);
	return entries.length === 1 ? findCount(entries[0]) : undefined;
}

/** The count in the answer; undefined if it holds none, a parse problem if its XML is refused. */
function readCount(body: string): number | undefined | { problem: string } {
	const text = body.trim();
	if (text.startsWith('<')) {
		const parsed = parseXml(text);
		return parsed.ok ? findCount(parsed.data) : { problem: parsed.problem };
	}
	if (text.startsWith('{')) {
		try {
			return findCount(JSON.parse(text));
		} catch {
			return undefined;
		}
	}
	return findCount(text);
}

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runPerItem.call(this, items, async (itemIndex) => {
		const request = {
			method: 'GET',
			path: ['reports', 'blocks', 'count'],
			query: blockFilterQuery(this, itemIndex),
			repeatable: true,
			itemIndex,
			errorDescriptions: BLOCK_ERROR_DESCRIPTIONS,
		} as const;
		const response = await apiRequest.call(this, request);
		const count = readCount(response.body);
		if (typeof count === 'number') return { count };
		const message =
			count === undefined
				? `The service’s answer to ${describeRequest(request)} holds no count`
				: `The service's answer to ${describeRequest(request)} could not be read: ${count.problem}`;
		throw serviceError(
			this,
			{
				message,
				description: `It answered: ${response.body.slice(0, 200)}. If this persists, report it to the package maintainers.`,
				httpCode: response.statusCode,
			},
			itemIndex,
		);
	});
}
