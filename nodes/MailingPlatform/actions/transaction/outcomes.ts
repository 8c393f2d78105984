import type { IDataObject, IExecuteFunctions, NodeApiError } from 'n8n-workflow';

import type { ItemResult, NodeError } from '../../helpers/itemResults';
import { itemError, paired } from '../../helpers/itemResults';
import { thousands } from '../../helpers/numbers';
import type { ServiceError } from '../../transport/errors';
import { serviceError } from '../../transport/errors';
import type { Transaction } from './shape';
import { contactOf } from './shape';

/** The service's word on one transaction of a request it answered, as its output item shows it. */
export interface QueueReport extends IDataObject {
	queued: boolean;
	contact: IDataObject | null;
	message?: string;
}

/** A request that failed as a whole, shared by the records it carried. */
export interface RequestFailure {
	/** The transport's `ServiceError`, or what else went wrong while the request was under way. */
	error: Error & Partial<Pick<ServiceError, 'description' | 'httpCode'>>;
	/** The service may have queued its transactions: it received the request, and its answer is unknown or unreadable. */
	outcomeUnknown: boolean;
	itemIndexes: readonly number[];
	/** Transactions of earlier requests that the service queued. */
	queuedBefore: number;
}

/** Where a transaction went (or would go): its request's number, size and count of transactions. */
export interface RequestSummary {
	number: number;
	bytes: number;
	transactions: number;
}

/** What became of one item; each step of Create settles the records it decides and leaves the others. */
export type Outcome =
	/** Refused before it was sent: an `InputProblem`, or an n8n error such as a failed expression. */
	| { kind: 'refused'; problem: unknown }
	| { kind: 'skipped'; reason: string }
	| { kind: 'dryRun'; request: RequestSummary }
	| { kind: 'reported'; report: QueueReport }
	| { kind: 'failed'; failure: RequestFailure };

/** One input item on its way through Create. */
export interface TransactionRecord {
	readonly itemIndex: number;
	/** Absent when the item was refused while its transaction was built. */
	readonly transaction?: Transaction;
	/** The Deduplication Key, when that option is on. */
	readonly key?: string;
	outcome?: Outcome;
	/** Why the key of an item not sent could not be removed from the history, which then skips it. */
	keyNotReleased?: string;
}

export type SendableRecord = TransactionRecord & { readonly transaction: Transaction };

/** The records no step has settled yet, in input order. */
export function unsettled(records: readonly TransactionRecord[]): SendableRecord[] {
	return records.filter((record): record is SendableRecord => record.outcome === undefined && record.transaction !== undefined);
}

export type SettledRecord = TransactionRecord & { outcome: Outcome };

/** The records some step settled: all of them, unless the node stops at a failure and leaves the rest unsent. */
export function settled(records: readonly TransactionRecord[]): readonly SettledRecord[] {
	const isSettled = (record: TransactionRecord): record is SettledRecord => record.outcome !== undefined;
	return records.every(isSettled) ? records : records.filter(isSettled);
}

function joined(...texts: unknown[]): string {
	return texts.filter((text) => typeof text === 'string' && text !== '').join(' ');
}

/** What a re-run does with the item, by its Deduplication Key; every item not queued says so. */
function keyNote(record: SettledRecord): string {
	const { key, outcome } = record;
	if (key === undefined) return '';
	const again = `to send it anyway, run it once with another key, e.g. "${key}-again"`;
	if (outcome.kind === 'failed' && outcome.failure.outcomeUnknown) {
		return `Its Deduplication Key "${key}" is kept, because the service may have queued the transaction: a re-run skips this item. Check in the platform whether its e-mail went out; ${again}.`;
	}
	if (record.keyNotReleased !== undefined) {
		return `Its Deduplication Key "${key}" could not be released (${record.keyNotReleased}), so a re-run skips this item; ${again}.`;
	}
	return 'Its Deduplication Key is not kept, so a re-run sends it.';
}

/** What to say of a request that failed as a whole: which items it carried and what was queued before it. */
function failureError(context: IExecuteFunctions, failure: RequestFailure, keyed: boolean): NodeApiError {
	const { error, itemIndexes, queuedBefore } = failure;
	const queued = `${thousands(queuedBefore)} items of earlier requests were already queued`;
	const earlier =
		queuedBefore === 0
			? 'No item of an earlier request was queued.'
			: keyed
				? `${queued}: a re-run skips them by their Deduplication Key.`
				: `${queued}: do not run the same input again, or their e-mails go out twice.`;
	return serviceError(
		context,
		{
			message: `${error.message} (items ${itemIndexes[0]} to ${itemIndexes[itemIndexes.length - 1]}, ${thousands(itemIndexes.length)} transactions)`,
			description: joined(error.description, earlier),
			httpCode: error.httpCode ?? undefined,
		},
		itemIndexes[0],
	);
}

const contactIn = (record: TransactionRecord): IDataObject => (record.transaction === undefined ? {} : contactOf(record.transaction));

/**
 * How each record shows in the node's output. Skipped duplicates and dry runs always go to the
 * main output; a transaction the service did not queue is declined, for the error output if any.
 */
export function outcomeRenderer(context: IExecuteFunctions, mode: { keyed: boolean; dryRun: boolean }): (record: SettledRecord) => ItemResult {
	const failures = new Map<RequestFailure, NodeApiError>();
	const keyField = (record: TransactionRecord): IDataObject => (record.key === undefined ? {} : { deduplicationKey: record.key });
	const failed = (record: SettledRecord, error: NodeError): ItemResult => {
		if (mode.keyed) error.description = joined(error.description, keyNote(record));
		const outcomeUnknown = record.outcome.kind === 'failed' && record.outcome.failure.outcomeUnknown;
		return { error, json: { queued: false, outcomeUnknown, contact: contactIn(record), ...keyField(record) }, pairedItem: paired(record.itemIndex) };
	};
	const requestError = (record: SettledRecord, failure: RequestFailure): ItemResult => {
		let shared = failures.get(failure);
		if (shared === undefined) failures.set(failure, (shared = failureError(context, failure, mode.keyed)));
		if (!mode.keyed) return failed(record, shared);
		const { message, description, httpCode } = shared;
		return failed(record, serviceError(context, { message, description: description ?? undefined, httpCode: httpCode ?? undefined }, record.itemIndex));
	};

	return (record) => {
		const { itemIndex, outcome } = record;
		switch (outcome.kind) {
			case 'refused':
				return failed(record, itemError(context.getNode(), outcome.problem, itemIndex));
			case 'skipped': {
				const json: IDataObject = { queued: false, skipped: true, ...keyField(record), contact: contactIn(record), message: outcome.reason };
				return { json: mode.dryRun ? { ...json, dryRun: true, transaction: record.transaction } : json, pairedItem: paired(itemIndex) };
			}
			case 'dryRun': {
				const message = 'Dry Run: checked and packed as a real run would, not sent';
				return {
					json: { dryRun: true, queued: false, contact: contactIn(record), ...keyField(record), message, request: { ...outcome.request }, transaction: record.transaction },
					pairedItem: paired(itemIndex),
				};
			}
			case 'reported': {
				// The report is the output item's JSON: 100,000 queued transactions cost no copy.
				const json = outcome.report;
				if (record.key !== undefined) json.deduplicationKey = record.key;
				if (json.queued) return { json, pairedItem: paired(itemIndex) };
				if (mode.keyed) json.message = joined(json.message, keyNote(record));
				return { json, declined: { message: 'The transaction was not queued', description: json.message }, pairedItem: paired(itemIndex) };
			}
			case 'failed':
				return requestError(record, outcome.failure);
		}
	};
}
