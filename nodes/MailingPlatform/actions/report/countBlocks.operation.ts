import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { runPerItem } from '../../helpers/perItem';
import { apiRequest } from '../../transport';
import { parseXml } from '../../transport/xml';
import { blockFilterQuery, blockFilters } from './filters';
import { BLOCK_ERROR_DESCRIPTIONS } from './getBlocks.operation';

export const description: INodeProperties[] = showFor('report', 'countBlocks', [blockFilters]);

/** A count wherever the answer holds one: `<count>7</count>`, `{"count":7}`, `7`, or one wrapper around those. */
function findCount(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
	if (typeof value === 'string') return /^\d+$/.test(value.trim()) ? findCount(Number(value.trim())) : undefined;
	if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
	const entries = Object.entries(value as IDataObject);
	if ('count' in value) return findCount((value as IDataObject).count);
	return entries.length === 1 ? findCount(entries[0][1]) : undefined;
}

function readCount(body: string): number | undefined {
	const text = body.trim();
	if (text.startsWith('<')) {
		const parsed = parseXml(text);
		return parsed.ok ? findCount(parsed.data) : undefined;
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
		const response = await apiRequest.call(this, {
			method: 'GET',
			path: ['reports', 'blocks', 'count'],
			query: blockFilterQuery(this, itemIndex),
			repeatable: true,
			itemIndex,
			errorDescriptions: BLOCK_ERROR_DESCRIPTIONS,
		});
		const count = readCount(response.body);
		if (count === undefined) {
			const message = 'The service’s answer to the block count holds no count';
			throw new NodeApiError(this.getNode(), { message } as JsonObject, {
				message,
				description: `It answered: ${response.body.slice(0, 200)}. If this persists, report it to the package maintainers.`,
				httpCode: String(response.statusCode),
				itemIndex,
			});
		}
		return { count };
	});
}
