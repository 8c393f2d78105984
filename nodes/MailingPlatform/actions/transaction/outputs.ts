import type { IDataObject, INode, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { BatchOutcome } from './batching';
import type { PreparedTransaction } from './packing';

type Failed = Extract<BatchOutcome, { kind: 'failed' }>;

const thousands = (value: number) => value.toLocaleString('en-US');

/** The error of a request that failed as a whole: which items it carried and what was queued before it. */
export function requestError(node: INode, transactions: readonly PreparedTransaction[], outcome: Failed): NodeApiError {
	const { failure, start, end, queuedBefore } = outcome;
	const earlier =
		queuedBefore === 0
			? 'No item of an earlier request was queued.'
			: `${thousands(queuedBefore)} items of earlier requests were already queued: do not run the same input again, or their e-mails go out twice.`;
	const firstItem = transactions[start].itemIndex;
	const message = `${failure.message} (items ${firstItem} to ${transactions[end - 1].itemIndex}, ${thousands(end - start)} transactions)`;
	const description = [failure.description, earlier].filter(Boolean).join(' ');
	const error = new NodeApiError(
		node,
		{ message: failure.message, description: failure.description ?? '', httpCode: failure.httpCode ?? '' } as JsonObject,
		{ message, description, httpCode: failure.httpCode ?? undefined, itemIndex: firstItem },
	);
	// NodeApiError swaps messages naming a network code for a generic "retry" text; here
	// retrying blindly could send e-mails twice, so the precise message stays.
	error.message = message;
	return error;
}

/**
 * One output item per input item, in input order: refusals, report entries and failed
 * requests each paired with the item they came from.
 */
export function pairOutputs(
	node: INode,
	itemCount: number,
	refused: ReadonlyArray<{ itemIndex: number; message: string }>,
	transactions: readonly PreparedTransaction[],
	outcomes: readonly BatchOutcome[],
	errorOutput: boolean,
): INodeExecutionData[] {
	const results: INodeExecutionData[] = new Array(itemCount);
	const put = (itemIndex: number, json: IDataObject) => (results[itemIndex] = { json, pairedItem: { item: itemIndex } });

	for (const { itemIndex, message } of refused) put(itemIndex, { error: message });
	for (const outcome of outcomes) {
		if (outcome.kind === 'failed') {
			const { message, description } = requestError(node, transactions, outcome);
			for (let index = outcome.start; index < outcome.end; index++) {
				put(transactions[index].itemIndex, { error: message, message: description });
			}
			continue;
		}
		for (let index = outcome.start; index < outcome.end; index++) {
			const entry = outcome.entries[index - outcome.start];
			const json: IDataObject = { queued: entry.queued, contact: entry.contact as IDataObject };
			if (!entry.queued) json.message = entry.message;
			// n8n routes an item to the error output only when its JSON is exactly {error} or
			// {error, message}; it then adds the input item's fields (the contact among them).
			const notQueued = errorOutput && !entry.queued;
			put(transactions[index].itemIndex, notQueued ? { error: 'The transaction was not queued', message: entry.message } : json);
		}
	}
	return results;
}
