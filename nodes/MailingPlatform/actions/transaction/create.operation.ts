import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { InputProblem } from '../../helpers/input';
import { thousands } from '../../helpers/numbers';
import { failedItemJson } from '../../helpers/perItem';
import { firstOfEachKey, keysByItem, sentKeys, skipSentKeys } from './deduplication';
import { ItemResults, requestError } from './outputs';
import type { Body } from './packing';
import { packBodies, unpackBody } from './packing';
import type { KeyedTransaction } from './prepare';
import { prepareTransactions } from './prepare';
import { transactionPoster } from './request';
import { sendBodies } from './sending';
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
	const prepared = firstOfEachKey(await prepareTransactions(this, items, settings, results), results, settings.dryRun);

	if (settings.dryRun) {
		dryRun(this, prepared, settings, results);
		return results.items();
	}

	const history = settings.deduplication === undefined ? undefined : sentKeys(this, settings.deduplication.historySize);
	const toSend = history === undefined ? prepared : await skipSentKeys(history, prepared, results);
	const queued = new Set<number>();
	try {
		await send(this, toSend, settings, results, queued);
	} finally {
		// Only transactions the service queued stay remembered; the others are sent by a re-run.
		await history?.release(toSend.filter(({ itemIndex }) => !queued.has(itemIndex)).map(({ key }) => key as string));
	}
	return results.items();
}

/** Packs as a real run would and shows each transaction as its request would carry it; sends and records nothing. */
function dryRun(context: IExecuteFunctions, transactions: KeyedTransaction[], settings: CreateSettings, results: ItemResults): void {
	const keyOf = keysByItem(transactions);
	const bodies = pack(context, transactions, settings, results);
	bodies.forEach((body, index) => {
		const request = { number: index + 1, of: bodies.length, bytes: body.bytes.length, transactions: body.itemIndexes.length };
		for (const { itemIndex, transaction } of unpackBody(body)) results.dryRun(itemIndex, transaction, request, keyOf.get(itemIndex));
	});
}

/** Packs, sends and reports `transactions`, noting in `queued` the items the service queued. */
async function send(
	context: IExecuteFunctions,
	transactions: KeyedTransaction[],
	settings: CreateSettings,
	results: ItemResults,
	queued: Set<number>,
): Promise<void> {
	const keyOf = keysByItem(transactions);
	const bodies = pack(context, transactions, settings, results);
	const post = transactionPoster(context, settings.ignoreInvalid);
	const outcomes = await sendBodies(bodies, settings.maxRequestBytes, post, !settings.continueOnFail);
	for (const outcome of outcomes) {
		if (outcome.kind === 'failed') {
			if (!settings.continueOnFail) throw requestError(context, outcome, settings.deduplication !== undefined);
			results.requestFailed(outcome);
			continue;
		}
		outcome.itemIndexes.forEach((itemIndex, index) => {
			const entry = outcome.entries[index];
			if (entry.queued) queued.add(itemIndex);
			results.reported(itemIndex, entry, keyOf.get(itemIndex));
		});
	}
}

/** The request bodies, refusing what no request may carry: a transaction over the limit alone, or not expressible as JSON. */
function pack(context: IExecuteFunctions, transactions: readonly KeyedTransaction[], settings: CreateSettings, results: ItemResults): Body[] {
	const limit = settings.maxRequestBytes;
	const { bodies, unserializable } = packBodies(transactions, limit);
	const refuse = (itemIndex: number, problem: InputProblem) => results.set(itemIndex, failedItemJson(context, problem, itemIndex));
	for (const { itemIndex, error } of unserializable) {
		refuse(itemIndex, new InputProblem(`The transaction cannot be written as JSON: ${error.message}`, 'Remove the value JSON cannot hold (e.g. a BigInt or a circular reference).'));
	}
	return bodies.filter((body) => {
		if (body.bytes.length <= limit) return true;
		refuse(
			body.itemIndexes[0],
			new InputProblem(
				`The transaction alone is ${thousands(body.bytes.length - 2)} bytes as JSON, more than one request may carry (${thousands(limit)} bytes)`,
				'Make its content or attachments smaller.',
			),
		);
		return false;
	});
}
