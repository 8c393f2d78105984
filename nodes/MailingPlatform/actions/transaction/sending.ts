/**
 * Sending Create's transactions: packed into bodies, each body posted by the transport (which
 * resends only what the service certainly did not take: transactions are not idempotent), and the
 * outcome of each body's items returned.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { counted, thousands } from '../../helpers/numbers';
import { InputProblem, isPlainObject } from '../../helpers/values';
import type { ServiceResponse } from '../../transport';
import { apiRequest } from '../../transport';
import { serviceError, ServiceError } from '../../transport/errors';
import type { Outcome, QueueReport } from './results';
import { alreadyQueued } from './results';
import type { Refusal } from './packing';
import { packBodies } from './packing';

/** Posts one body of the transactions of `itemIndexes` and reads the service's report of each. Throws the transport's `ServiceError`. */
export type PostTransactions = (body: Buffer, itemIndexes: readonly number[]) => Promise<QueueReport[]>;

export interface SendLimits {
	/** Max Request Bytes: no body is larger, and a transaction larger alone is refused. */
	maxRequestBytes: number;
	/** Without continue-on-fail the node stops at a failure: nothing after it is sent. */
	stopAtFailure: boolean;
}

function readQueued(value: unknown): boolean | undefined {
	if (value === true || value === 'true') return true;
	if (value === false || value === 'false') return false;
	return undefined;
}

/**
 * Entry i of the answer belongs to transaction i. The wrapper is `reports` or `report` (the spec
 * shows both) and `queued` a boolean or "true"/"false". A count that does not match is a problem:
 * pairing by guesswork could mark an e-mail as sent that was not, or the other way round. Each
 * entry becomes its item's report as it is (fields the spec does not name pass through).
 */
function queueReports(context: IExecuteFunctions, response: ServiceResponse, itemIndexes: readonly number[]): QueueReport[] {
	const unreadable = (problem: string) =>
		serviceError(context, {
			message: `The service's report could not be matched to the transactions sent: ${problem}`,
			description: 'The request was accepted, so some of these transactions may have been queued. Check in the platform before you send them again.',
			httpCode: response.statusCode,
			outcomeUnknown: true,
		}, itemIndexes[0]);
	let parsed: unknown;
	try {
		parsed = JSON.parse(response.body);
	} catch {
		throw unreadable('the answer is not JSON');
	}
	const wrapper = isPlainObject(parsed) ? parsed : {};
	const list: unknown = Array.isArray(wrapper.reports) ? wrapper.reports : wrapper.report;
	if (!Array.isArray(list)) throw unreadable('the answer has no "reports" or "report" list');
	if (list.length !== itemIndexes.length) throw unreadable(`the answer has ${counted(list.length, 'report entry', 'report entries')} for ${counted(itemIndexes.length, 'transaction', 'transactions')} sent`);
	for (const [index, entry] of list.entries()) {
		const queued = isPlainObject(entry) ? readQueued(entry.queued) : undefined;
		if (!isPlainObject(entry) || queued === undefined) throw unreadable(`report entry ${index + 1} has no readable "queued" value`);
		entry.queued = queued;
		entry.contact ??= null;
		if (typeof entry.message !== 'string') delete entry.message;
		if (!queued) entry.message ??= 'The service did not queue the transaction and gave no reason.';
	}
	return list as QueueReport[];
}

/**
 * What the poster throws: the transport's error, but one that says what a 413 for a transaction
 * alone means; anything else that went wrong while posting leaves the outcome unknown.
 */
function failureOf(context: IExecuteFunctions, error: unknown, body: Buffer, itemIndexes: readonly number[]): ServiceError {
	if (error instanceof ServiceError && !(error.httpCode === '413' && itemIndexes.length === 1)) return error;
	const details =
		error instanceof ServiceError
			? {
					message: `The service refused the transaction as too large (413), even sent alone (${thousands(body.length)} bytes)`,
					description: 'Its limit is lower than documented. Make the content or attachments of this item smaller.',
					httpCode: 413,
					notProcessed: true,
				}
			: {
					message: (error as Error).message,
					description: 'The service may have queued these transactions. Check in the platform before you send them again.',
					outcomeUnknown: true,
				};
	return serviceError(context, details, itemIndexes[0]);
}

/** POST transactions, as `sendTransactions` needs it; whatever else goes wrong while posting leaves the outcome unknown. */
export function transactionPoster(context: IExecuteFunctions, ignoreInvalid: boolean): PostTransactions {
	return async (body, itemIndexes) => {
		try {
			const response = await apiRequest.call(context, {
				method: 'POST',
				path: ['transactions'],
				query: { ignore_invalid_transactions: ignoreInvalid },
				jsonBody: body,
				repeatable: false,
				itemIndex: itemIndexes[0],
				errorDescriptions: {
					400: ignoreInvalid
						? 'The service refused the request body. None of its transactions was queued.'
						: 'With Ignore Invalid Transactions off, one invalid transaction fails its whole request, and none of its transactions was queued. Fix the transaction named in the message, or turn the option on.',
				},
			});
			return queueReports(context, response, itemIndexes);
		} catch (error) {
			throw failureOf(context, error, body, itemIndexes);
		}
	};
}

function refusedOutcome({ start, refusal }: Refusal, order: readonly number[], queuedBefore: number): Outcome {
	// Bodies go out as they are packed, so earlier items may be queued already when this one is found.
	const earlier = queuedBefore === 0 ? '' : ` ${alreadyQueued(queuedBefore)}.`;
	return { kind: 'refused', itemIndexes: [order[start]], problem: new InputProblem(refusal.problem, refusal.hint + earlier) };
}

/**
 * Sends the transactions of the items in `order`, and returns the outcome of each: reported by
 * the service (each report with the item's Deduplication Key, from `keys`), failed with its
 * request, or refused by the packer (JSON cannot hold it, or it is larger alone than Max Request
 * Bytes). A 413 says the account's limit is lower than Max Request Bytes: it queues nothing, so
 * the refused body and every later one are packed again at half its size.
 */
export async function sendTransactions(
	post: PostTransactions,
	transactions: ReadonlyArray<unknown>,
	order: readonly number[],
	limits: SendLimits,
	keys?: readonly string[],
): Promise<Outcome[]> {
	const outcomes: Outcome[] = [];
	let queued = 0;
	let limit = limits.maxRequestBytes;
	let from = 0;
	packing: while (from < order.length) {
		for (const body of packBodies(transactions, order, from, { limit, maxBytes: limits.maxRequestBytes })) {
			from = body.end;
			if ('refusal' in body) {
				outcomes.push(refusedOutcome(body, order, queued));
				if (limits.stopAtFailure) return outcomes;
				continue;
			}
			const itemIndexes = order.slice(body.start, body.end);
			try {
				const reports = await post(body.bytes, itemIndexes);
				if (keys !== undefined) reports.forEach((report, position) => (report.deduplicationKey = keys[itemIndexes[position]]));
				outcomes.push({ kind: 'reported', itemIndexes, reports });
				for (const report of reports) if (report.queued) queued++;
			} catch (error) {
				const failure = error as ServiceError;
				if (failure.httpCode === '413' && itemIndexes.length > 1) {
					limit = Math.min(limit, Math.floor(body.bytes.length / 2));
					from = body.start;
					continue packing;
				}
				outcomes.push({ kind: 'failed', itemIndexes, error: failure });
				if (limits.stopAtFailure) return outcomes;
			}
		}
	}
	return outcomes;
}

/** Dry Run: the request each transaction would go in, packed exactly as `sendTransactions` packs, and the same refusals. */
export function packForDryRun(transactions: ReadonlyArray<unknown>, order: readonly number[], limits: SendLimits): Outcome[] {
	const outcomes: Outcome[] = [];
	let number = 0;
	for (const body of packBodies(transactions, order, 0, { limit: limits.maxRequestBytes, maxBytes: limits.maxRequestBytes })) {
		if ('refusal' in body) {
			outcomes.push(refusedOutcome(body, order, 0));
			if (limits.stopAtFailure) return outcomes;
			continue;
		}
		const request = { number: ++number, bytes: body.bytes.length, transactions: body.end - body.start };
		outcomes.push({ kind: 'packed', itemIndexes: order.slice(body.start, body.end), request });
	}
	return outcomes;
}
