/**
 * Rendering: each item's output from its outcome, a function of the outcomes that changes none of
 * them (nor their errors or reports).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ItemResult, NodeError } from '../../helpers/itemResults';
import { itemError, paired } from '../../helpers/itemResults';
import { counted, thousands } from '../../helpers/numbers';
import type { ServiceError } from '../../transport/errors';
import { serviceError } from '../../transport/errors';
import type { KeyOutcome, Outcome } from './results';
import { alreadyQueued, sendsOnRetry } from './results';

function joined(...texts: unknown[]): string {
	return texts.filter((text) => typeof text === 'string' && text !== '').join(' ');
}

/** What became of an item's Deduplication Key, and so what a re-run or a later delivery does with the item. */
function keyNote(key: string, outcome: Outcome, keyOutcome: KeyOutcome | undefined): string {
	const again = `to send it anyway, run it once with another key, e.g. "${key}-again"`;
	if (keyOutcome?.kind === 'notReleased') {
		return `Its Deduplication Key "${key}" could not be released (${keyOutcome.reason}), so a re-run skips this item; ${again}.`;
	}
	if (keyOutcome?.kind === 'heldByAnother') {
		// Without the key, which the item names: one text for all of a large execution's items, and so one n8n error.
		return 'Running it again sends it once, unless that execution queued the same transaction: then a re-run skips it.';
	}
	if (outcome.kind === 'failed' && outcome.error.outcomeUnknown) {
		return `Its Deduplication Key "${key}" is kept, because the service may have queued the transaction: a re-run skips this item. Check in the platform whether its e-mail went out; ${again}.`;
	}
	return 'Its Deduplication Key is not kept, so a re-run sends it.';
}

/** The queued items of requests sent before `itemIndex`'s: how many, and the first and last of them. */
function queuedBefore(outcomes: readonly Outcome[], itemIndex: number): { count: number; first: number; last: number } {
	const queued = { count: 0, first: Number.POSITIVE_INFINITY, last: -1 };
	for (const outcome of outcomes) {
		if (outcome.kind !== 'reported' || outcome.itemIndexes[0] > itemIndex) continue;
		outcome.reports.forEach((report, position) => {
			const item = outcome.itemIndexes[position];
			if (!report.queued || item > itemIndex) return;
			queued.count++;
			queued.first = Math.min(queued.first, item);
			queued.last = Math.max(queued.last, item);
		});
	}
	return queued;
}

const itemRange = (first: number, last: number) => (first === last ? `item ${thousands(first)}` : `items ${thousands(first)} to ${thousands(last)}`);

/** The items a request carried, e.g. "items 0 to 4, 5 transactions" or "item 3". */
function carried(itemIndexes: readonly number[]): string {
	const range = itemRange(itemIndexes[0], itemIndexes[itemIndexes.length - 1]);
	return itemIndexes.length === 1 ? range : `${range}, ${counted(itemIndexes.length, 'transaction', 'transactions')}`;
}

/** What to say of a request that failed as a whole: which items it carried, what was queued before it, what a retry does, and `note` of the item's key. */
function failureError(context: IExecuteFunctions, outcome: Outcome & { kind: 'failed' }, outcomes: readonly Outcome[], keyed: boolean, note = ''): ServiceError {
	const { error, itemIndexes } = outcome;
	const queued = queuedBefore(outcomes, itemIndexes[0]);
	const them = queued.count === 1 ? 'it' : 'them';
	const earlier = `${alreadyQueued(queued.count)} (${itemRange(queued.first, queued.last)})`;
	const retry =
		queued.count === 0
			? 'No item of an earlier request was queued.'
			: keyed
				? `${earlier}: a re-run skips ${them} by the Deduplication Key.`
				: `${earlier}: retrying this execution, or running the same input again, sends ${them} again. Set a Deduplication Key to prevent that.`;
	return serviceError(
		context,
		{
			message: `${error.message} (${carried(itemIndexes)})`,
			description: joined(error.description, retry, note),
			httpCode: error.httpCode ?? undefined,
			outcomeUnknown: error.outcomeUnknown,
			notProcessed: error.notProcessed,
		},
		itemIndexes[0],
	);
}

/** Everything rendering needs to know of the items besides their outcomes. */
interface RenderInput {
	transactions: ReadonlyArray<Record<string, unknown> | undefined>;
	/** The identification of a transaction's contact, as the service's report names contacts. */
	contactOf: (transaction: Record<string, unknown>) => IDataObject;
	keys?: readonly string[];
	keyOutcomes: readonly KeyOutcome[];
	dryRun: boolean;
}

/**
 * Each item's output, in input order, from the outcome that decided it: skipped duplicates and dry
 * runs on the main output; a transaction the service did not queue declined, for the error output
 * if any; refusals and failed requests as failures. Items without an outcome (the node stopped
 * before them) are left out.
 */
export function renderOutcomes(context: IExecuteFunctions, outcomes: readonly Outcome[], input: RenderInput): ItemResult[] {
	const { transactions, contactOf, keys, keyOutcomes, dryRun } = input;
	const keyOutcomeOf = new Map<number, KeyOutcome>();
	for (const keyOutcome of keyOutcomes) for (const itemIndex of keyOutcome.itemIndexes) keyOutcomeOf.set(itemIndex, keyOutcome);
	const contactIn = (itemIndex: number): IDataObject => {
		const transaction = transactions[itemIndex];
		return transaction === undefined ? {} : contactOf(transaction);
	};
	const keyField = (itemIndex: number): IDataObject => (keys?.[itemIndex] === undefined ? {} : { deduplicationKey: keys[itemIndex] });
	const noteOf = (itemIndex: number, outcome: Outcome) => (keys === undefined ? '' : keyNote(keys[itemIndex], outcome, keyOutcomeOf.get(itemIndex)));
	const failed = (itemIndex: number, outcome: Outcome, error: NodeError): ItemResult => {
		const outcomeUnknown = outcome.kind === 'failed' && outcome.error.outcomeUnknown;
		// What a workflow branches on to send it later: the service did not get it, for a cause that passes.
		const notSentYet = sendsOnRetry(outcome);
		return { error, json: { queued: false, outcomeUnknown, notSentYet, contact: contactIn(itemIndex), ...keyField(itemIndex) }, pairedItem: paired(itemIndex) };
	};
	const refusalError = (itemIndex: number, outcome: Outcome & { kind: 'refused' }): NodeError => {
		const error = itemError(context.getNode(), outcome.problem, itemIndex);
		if (keys === undefined) return error;
		return new NodeOperationError(context.getNode(), error.message, { itemIndex, description: joined(error.description, noteOf(itemIndex, outcome)) });
	};

	const results = new Array<ItemResult | undefined>(transactions.length);
	for (const outcome of outcomes) {
		const shared = outcome.kind === 'failed' && keys === undefined ? failureError(context, outcome, outcomes, false) : undefined;
		// An outcome's items whose key note is the same share one error: an n8n error per item of a large request held the thread for tens of ms.
		const byNote = new Map<string, NodeError>();
		const errorWith = (note: string, make: () => NodeError) => {
			let error = byNote.get(note);
			if (error === undefined) byNote.set(note, (error = make()));
			return error;
		};
		outcome.itemIndexes.forEach((itemIndex, position) => {
			const pairedItem = paired(itemIndex);
			switch (outcome.kind) {
				case 'refused':
					results[itemIndex] = failed(itemIndex, outcome, errorWith(noteOf(itemIndex, outcome), () => refusalError(itemIndex, outcome)));
					return;
				case 'failed': {
					const note = noteOf(itemIndex, outcome);
					results[itemIndex] = failed(itemIndex, outcome, shared ?? errorWith(note, () => failureError(context, outcome, outcomes, true, note)));
					return;
				}
				case 'skipped': {
					const json: IDataObject = { queued: false, skipped: true, ...keyField(itemIndex), contact: contactIn(itemIndex), message: outcome.reason };
					// What a workflow branches on: the service may have queued it, under an earlier execution.
					if (outcome.unknown === true) json.outcomeUnknown = true;
					results[itemIndex] = { json: dryRun ? { ...json, dryRun: true, transaction: transactions[itemIndex] } : json, pairedItem };
					return;
				}
				case 'packed': {
					const message = 'Dry Run: checked and packed as a real run would, not sent';
					const json = { dryRun: true, queued: false, contact: contactIn(itemIndex), ...keyField(itemIndex), message, request: { ...outcome.request }, transaction: transactions[itemIndex] };
					results[itemIndex] = { json, pairedItem };
					return;
				}
				case 'reported': {
					// A queued transaction's report is its output item's JSON as it is, not a copy.
					const report = outcome.reports[position];
					if (report.queued && !keyOutcomeOf.has(itemIndex)) results[itemIndex] = { json: report, pairedItem };
					else if (report.queued) results[itemIndex] = { json: { ...report, message: noteOf(itemIndex, outcome) }, pairedItem };
					else {
						const json = { ...report, message: joined(report.message, noteOf(itemIndex, outcome)) };
						results[itemIndex] = { json, declined: { message: 'The transaction was not queued', description: json.message }, pairedItem };
					}
					return;
				}
			}
		});
	}
	// Items the node stopped before (at a failure, without continue-on-fail) have no outcome and no output.
	const decided = outcomes.reduce((count, outcome) => count + outcome.itemIndexes.length, 0);
	return decided === results.length ? (results as ItemResult[]) : results.filter((result): result is ItemResult => result !== undefined);
}
