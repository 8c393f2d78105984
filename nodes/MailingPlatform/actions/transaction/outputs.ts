import type { IDataObject, IExecuteFunctions, INodeExecutionData, NodeApiError } from 'n8n-workflow';

import { thousands } from '../../helpers/numbers';
import { errorItemJson } from '../../helpers/perItem';
import { serviceError } from '../../transport/errors';
import type { BatchOutcome } from './batching';
import type { PreparedTransaction } from './packing';
import type { Prepared } from './prepare';

type Failed = Extract<BatchOutcome, { kind: 'failed' }>;

/** What to say about a request that failed as a whole: which items it carried and what was queued before it. */
function failureText(transactions: readonly PreparedTransaction[], outcome: Failed): { message: string; description: string } {
	const { failure, start, end, queuedBefore } = outcome;
	const earlier =
		queuedBefore === 0
			? 'No item of an earlier request was queued.'
			: `${thousands(queuedBefore)} items of earlier requests were already queued: do not run the same input again, or their e-mails go out twice.`;
	return {
		message: `${failure.message} (items ${transactions[start].itemIndex} to ${transactions[end - 1].itemIndex}, ${thousands(end - start)} transactions)`,
		description: [failure.description, earlier].filter(Boolean).join(' '),
	};
}

/** The node's error for a request that failed as a whole, when the node stops on it. */
export function requestError(context: IExecuteFunctions, transactions: readonly PreparedTransaction[], outcome: Failed): NodeApiError {
	const httpCode = outcome.failure.httpCode ?? undefined;
	return serviceError(context, { ...failureText(transactions, outcome), httpCode }, transactions[outcome.start].itemIndex);
}

/**
 * One output item per input item, in input order: refusals, report entries and failed
 * requests each paired with the item they came from.
 */
export function pairOutputs(
	itemCount: number,
	refused: Prepared['refused'],
	transactions: readonly PreparedTransaction[],
	outcomes: readonly BatchOutcome[],
	errorOutput: boolean,
): INodeExecutionData[] {
	const results: INodeExecutionData[] = new Array(itemCount);
	const put = (itemIndex: number, json: IDataObject) => (results[itemIndex] = { json, pairedItem: { item: itemIndex } });

	for (const { itemIndex, message, hint } of refused) put(itemIndex, errorItemJson({ message, description: hint }));
	for (const outcome of outcomes) {
		if (outcome.kind === 'failed') {
			const json = errorItemJson(failureText(transactions, outcome));
			for (let index = outcome.start; index < outcome.end; index++) put(transactions[index].itemIndex, json);
			continue;
		}
		for (let index = outcome.start; index < outcome.end; index++) {
			const entry = outcome.entries[index - outcome.start];
			const json: IDataObject = { queued: entry.queued, contact: entry.contact as IDataObject };
			if (!entry.queued) json.message = entry.message;
			// n8n routes an item to the error output only when its JSON is exactly {error} or
			// {error, message}; it then adds the input item's fields (the contact among them).
			const notQueued = errorOutput && !entry.queued;
			put(
				transactions[index].itemIndex,
				notQueued ? errorItemJson({ message: 'The transaction was not queued', description: entry.message }) : json,
			);
		}
	}
	return results;
}
