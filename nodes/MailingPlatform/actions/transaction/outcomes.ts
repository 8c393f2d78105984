import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ItemResult, NodeError } from '../../helpers/itemResults';
import { itemError, paired } from '../../helpers/itemResults';
import { counted, thousands } from '../../helpers/numbers';
import type { ServiceError } from '../../transport/errors';
import { serviceError } from '../../transport/errors';

/** The service's word on one transaction of a request it answered: the report entry, as the output item shows it. */
export interface QueueReport extends IDataObject {
	queued: boolean;
	contact: IDataObject | null;
	message?: string;
}

/** Where a transaction went (or would go): its request's number, size and count of transactions. */
export interface RequestSummary {
	number: number;
	bytes: number;
	transactions: number;
}

/**
 * What became of some items, decided by one step of Create; every item gets exactly one. A
 * request's items share one outcome, so 100,000 items cost a dozen of them.
 */
export type Outcome = { readonly itemIndexes: readonly number[] } & (
	| /** Refused before it was sent: an `InputProblem`, or an n8n error such as a failed expression. */
	{ kind: 'refused'; problem: unknown }
	| { kind: 'skipped'; reason: string }
	/** Dry Run: packed as a real run would, not sent. */
	| { kind: 'packed'; request: RequestSummary }
	/** The service answered the request: `reports[i]` belongs to `itemIndexes[i]`. */
	| { kind: 'reported'; reports: readonly QueueReport[] }
	/** The request failed as a whole; the error says whether the service may have queued it. */
	| { kind: 'failed'; error: ServiceError }
);

/**
 * What became of a Deduplication Key after sending, where it is not what the outcome implies
 * (kept when the service may have queued the transaction, released otherwise).
 */
export interface KeyOutcome {
	readonly itemIndexes: readonly number[];
	/** `notReleased`: a re-run skips these items; `notConfirmed`: a delivery in another process may send them again. */
	kind: 'notReleased' | 'notConfirmed';
	reason: string;
}

/** Whether the service got the request and answered it, or may have acted on it: sending it again could mail twice. */
export function reachedService(outcome: Outcome): boolean {
	return outcome.kind === 'reported' || (outcome.kind === 'failed' && !outcome.error.notProcessed);
}

function joined(...texts: unknown[]): string {
	return texts.filter((text) => typeof text === 'string' && text !== '').join(' ');
}

/** What became of an item's Deduplication Key, and so what a re-run or a later delivery does with the item. */
function keyNote(key: string, outcome: Outcome, keyOutcome: KeyOutcome | undefined): string {
	const again = `to send it anyway, run it once with another key, e.g. "${key}-again"`;
	if (keyOutcome?.kind === 'notReleased') {
		return `Its Deduplication Key "${key}" could not be released (${keyOutcome.reason}), so a re-run skips this item; ${again}.`;
	}
	if (keyOutcome?.kind === 'notConfirmed') {
		return `Its Deduplication Key "${key}" could not be confirmed in n8n's store (${keyOutcome.reason}): a delivery of the same item in another n8n process at this moment may send it again.`;
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

/** What a failure's text says of the items queued before it, e.g. "2 items of earlier requests were already queued". */
export const alreadyQueued = (count: number) => `${counted(count, 'item of an earlier request was', 'items of earlier requests were')} already queued`;

const itemRange = (first: number, last: number) => (first === last ? `item ${thousands(first)}` : `items ${thousands(first)} to ${thousands(last)}`);

/** The items a request carried, e.g. "items 0 to 4, 5 transactions" or "item 3". */
function carried(itemIndexes: readonly number[]): string {
	const range = itemRange(itemIndexes[0], itemIndexes[itemIndexes.length - 1]);
	return itemIndexes.length === 1 ? range : `${range}, ${counted(itemIndexes.length, 'transaction', 'transactions')}`;
}

/** What to say of a request that failed as a whole: which items it carried, what was queued before it, and what a retry does. */
function failureError(context: IExecuteFunctions, outcome: Outcome & { kind: 'failed' }, outcomes: readonly Outcome[], keyed: boolean): ServiceError {
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
			description: joined(error.description, retry),
			httpCode: error.httpCode ?? undefined,
			outcomeUnknown: error.outcomeUnknown,
			notProcessed: error.notProcessed,
		},
		itemIndexes[0],
	);
}

/** Everything rendering needs to know of the items besides their outcomes. */
export interface RenderInput {
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
		if (keys !== undefined) error.description = joined(error.description, noteOf(itemIndex, outcome));
		const outcomeUnknown = outcome.kind === 'failed' && outcome.error.outcomeUnknown;
		return { error, json: { queued: false, outcomeUnknown, contact: contactIn(itemIndex), ...keyField(itemIndex) }, pairedItem: paired(itemIndex) };
	};

	const results = new Array<ItemResult | undefined>(transactions.length);
	for (const outcome of outcomes) {
		const shared = outcome.kind === 'failed' && keys === undefined ? failureError(context, outcome, outcomes, false) : undefined;
		outcome.itemIndexes.forEach((itemIndex, position) => {
			const pairedItem = paired(itemIndex);
			switch (outcome.kind) {
				case 'refused':
					results[itemIndex] = failed(itemIndex, outcome, itemError(context.getNode(), outcome.problem, itemIndex));
					return;
				case 'failed':
					results[itemIndex] = failed(itemIndex, outcome, shared ?? failureError(context, outcome, outcomes, true));
					return;
				case 'skipped': {
					const json: IDataObject = { queued: false, skipped: true, ...keyField(itemIndex), contact: contactIn(itemIndex), message: outcome.reason };
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
					// The report is the output item's JSON: 100,000 queued transactions cost no copy.
					const report = outcome.reports[position];
					if (keys !== undefined) report.deduplicationKey = keys[itemIndex];
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
	// Every item has an outcome unless the node stopped before some: then those are left out.
	const decided = outcomes.reduce((count, outcome) => count + outcome.itemIndexes.length, 0);
	return decided === results.length ? (results as ItemResult[]) : results.filter((result): result is ItemResult => result !== undefined);
}
