import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { InputProblem } from '../../helpers/input';
import { thousands } from '../../helpers/numbers';
import { failedItemJson } from '../../helpers/perItem';
import { firstOfEachKey, sentKeys, skipSentKeys } from './deduplication';
import { ItemResults, requestError } from './outputs';
import type { Body, Packed, PreparedTransaction } from './packing';
import { packBodies, unpackBody } from './packing';
import { prepareTransactions } from './prepare';
import { transactionPoster } from './request';
import { Sender } from './sending';
import type { CreateSettings } from './settings';
import { readCreateSettings } from './settings';

export { description } from './create.description';

/**
 * item -> transaction -> (not sent before) -> body -> request -> report -> item: every input item
 * ends as exactly one output item, paired with it.
 */
export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const settings = readCreateSettings(this);
	const results = new ItemResults(items.length, {
		errorOutput: settings.errorOutput,
		deduplicated: settings.deduplication !== undefined,
	});
	const prepared = await prepareTransactions(this, items, settings, results);
	const transactions = settings.deduplication === undefined ? prepared : firstOfEachKey(prepared, results, settings.dryRun);

	if (settings.dryRun) {
		dryRun(this, transactions, settings, results);
		return results.items();
	}
	if (settings.deduplication === undefined) {
		await send(this, transactions, settings, results);
		return results.items();
	}
	const history = sentKeys(this, settings.deduplication.historySize);
	const toSend = await skipSentKeys(history, transactions, results);
	try {
		await send(this, toSend, settings, results);
	} finally {
		// Only transactions the service queued stay remembered; the others are sent by a re-run.
		const unsent = toSend.filter(({ itemIndex }) => !results.wasQueued(itemIndex));
		await history.release(unsent.map(({ itemIndex }) => results.keyOf(itemIndex)));
	}
	return results.items();
}

/** Packs one body at a time and sends it before the next is packed, so the bodies never all sit in memory. */
async function send(context: IExecuteFunctions, transactions: PreparedTransaction[], settings: CreateSettings, results: ItemResults): Promise<void> {
	const sender = new Sender(settings.maxRequestBytes, transactionPoster(context, settings.ignoreInvalid), !settings.continueOnFail);
	for (const packed of packBodies(transactions, settings.maxRequestBytes)) {
		const body = sendable(context, packed, settings, results, sender.queued);
		if (body === undefined) continue;
		for (const outcome of await sender.send(body)) {
			if (outcome.kind === 'reported') {
				outcome.itemIndexes.forEach((itemIndex, index) => results.reported(itemIndex, outcome.entries[index]));
				continue;
			}
			if (!settings.continueOnFail) throw requestError(context, outcome, settings.deduplication !== undefined);
			results.requestFailed(outcome);
		}
	}
}

/** Packs as a real run would and shows each transaction as its request would carry it; sends and records nothing. */
function dryRun(context: IExecuteFunctions, transactions: PreparedTransaction[], settings: CreateSettings, results: ItemResults): void {
	let number = 0;
	for (const packed of packBodies(transactions, settings.maxRequestBytes)) {
		const body = sendable(context, packed, settings, results, 0);
		if (body === undefined) continue;
		const request = { number: ++number, bytes: body.bytes.length, transactions: body.itemIndexes.length };
		for (const { itemIndex, transaction } of unpackBody(body)) results.dryRun(itemIndex, transaction, request);
	}
}

/**
 * The body, or undefined when the packer found a transaction no request may carry (over the limit
 * alone, or not expressible as JSON), which is refused the way every item is refused.
 */
function sendable(context: IExecuteFunctions, packed: Packed, settings: CreateSettings, results: ItemResults, queuedBefore: number): Body | undefined {
	const limit = settings.maxRequestBytes;
	if (packed.kind === 'body' && packed.body.bytes.length <= limit) return packed.body;
	const itemIndex = packed.kind === 'body' ? packed.body.itemIndexes[0] : packed.itemIndex;
	const problem =
		packed.kind === 'body'
			? `The transaction alone is ${thousands(packed.body.bytes.length - 2)} bytes as JSON, more than one request may carry (${thousands(limit)} bytes)`
			: `The transaction cannot be written as JSON: ${packed.error.message}`;
	const hint = packed.kind === 'body' ? 'Make its content or attachments smaller.' : 'Remove the value JSON cannot hold (e.g. a BigInt or a circular reference).';
	// Bodies go out as they are packed, so earlier items may be queued already when this one is found.
	const earlier = queuedBefore === 0 ? '' : ` ${thousands(queuedBefore)} items of earlier requests were already queued.`;
	results.refused(itemIndex, failedItemJson(context, new InputProblem(problem, hint + earlier), itemIndex));
	return undefined;
}
