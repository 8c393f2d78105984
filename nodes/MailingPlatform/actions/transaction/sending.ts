/**
 * Sending Create's transactions: each execution's transactions go to its account's sender
 * (accountSender.ts), which posts them, shared with other executions running at the same time,
 * through the transport, which never resends what the service may have taken (transactions are
 * not idempotent); each item's outcome comes back. Dry Run packs the same way and sends nothing.
 */
import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { counted, seconds, thousands } from '../../helpers/numbers';
import { isPlainObject } from '../../helpers/values';
import type { ServiceResponse } from '../../transport';
import { apiRequest, credentialOf } from '../../transport';
import { accountOf, gateOf } from '../../transport/accountGate';
import { serviceError, ServiceError } from '../../transport/errors';
import type { PostBody, ProbeAccount } from './accountSender';
import { AccountSender } from './accountSender';
import { packBodies } from './packing';
import type { Outcome, QueueReport } from './results';
import { refusedOutcome } from './results';
import type { JobSettings, SharingNote } from './sendJob';
import { SendJob } from './sendJob';
import { whyWaited } from './waits';

function readQueued(value: unknown): boolean | undefined {
	if (value === true || value === 'true') return true;
	if (value === false || value === 'false') return false;
	return undefined;
}

/** Identifications of a contact that can be compared: an e-mail in any case, ids as text. */
const IDENTIFIERS: ReadonlyArray<[string, (value: unknown) => string]> = [
	['email', (value) => String(value).trim().toLowerCase()],
	['external_id', String],
	['id', String],
];

/** Whether a report entry's contact is another than the transaction's: an identification both give differs. */
function namesAnother(reported: unknown, sent: IDataObject): boolean {
	if (!isPlainObject(reported)) return false;
	return IDENTIFIERS.some(([name, normal]) => reported[name] != null && sent[name] != null && normal(reported[name]) !== normal(sent[name]));
}

/**
 * Entry i of the answer belongs to transaction i, which `contacts[i]` names. The wrapper is
 * `reports` or `report` (the spec shows both) and `queued` a boolean or "true"/"false". A count
 * that does not match, or an entry naming another contact than its transaction (the entries came
 * in another order), is a problem: pairing by guesswork could mark an e-mail as sent that was
 * not, or the other way round. Each entry becomes its item's report as it is (fields the spec
 * does not name pass through).
 */
function queueReports(context: IExecuteFunctions, response: ServiceResponse, contacts: readonly IDataObject[]): QueueReport[] {
	const count = contacts.length;
	const unreadable = (problem: string) =>
		serviceError(context, {
			message: `The service's report could not be matched to the transactions sent: ${problem}`,
			description: 'The request was accepted, so some of these transactions may have been queued. Check in the platform before you send them again.',
			httpCode: response.statusCode,
			outcomeUnknown: true,
		});
	let parsed: unknown;
	try {
		parsed = JSON.parse(response.body);
	} catch {
		throw unreadable('the answer is not JSON');
	}
	const wrapper = isPlainObject(parsed) ? parsed : {};
	const list: unknown = Array.isArray(wrapper.reports) ? wrapper.reports : wrapper.report;
	if (!Array.isArray(list)) throw unreadable('the answer has no "reports" or "report" list');
	if (list.length !== count) throw unreadable(`the answer has ${counted(list.length, 'report entry', 'report entries')} for ${counted(count, 'transaction', 'transactions')} sent`);
	for (const [index, entry] of list.entries()) {
		const queued = isPlainObject(entry) ? readQueued(entry.queued) : undefined;
		if (!isPlainObject(entry) || queued === undefined) throw unreadable(`report entry ${index + 1} has no readable "queued" value`);
		if (namesAnother(entry.contact, contacts[index])) throw unreadable(`report entry ${index + 1} names another contact than transaction ${index + 1} of the request`);
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
function failureOf(context: IExecuteFunctions, error: unknown, body: Buffer, count: number): ServiceError {
	if (error instanceof ServiceError && !(error.httpCode === '413' && count === 1)) return error;
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
	return serviceError(context, details);
}

/** POST transactions, once: the account's sender decides what goes again, and nothing aborts the request once it leaves. */
const postBody: PostBody = async (context, { body, contacts, ignoreInvalid, earlierAttempts }) => {
	try {
		const response = await apiRequest.call(context, {
			method: 'POST',
			path: ['transactions'],
			query: { ignore_invalid_transactions: ignoreInvalid },
			jsonBody: body,
			repeatable: false,
			sender: { earlierAttempts },
			errorDescriptions: {
				400: ignoreInvalid
					? 'The service refused the request body. None of its transactions was queued.'
					: 'With Ignore Invalid Transactions off, one invalid transaction fails its whole request, and none of its transactions was queued. Fix the transaction named in the message, or turn the option on.',
			},
		});
		return queueReports(context, response, contacts);
	} catch (error) {
		throw failureOf(context, error, body, contacts.length);
	}
};

/** A read of the block count over an empty span: the smallest request the account's budget knows. */
const probeAccount: ProbeAccount = async (context) => {
	const now = Date.now();
	await apiRequest.call(context, { method: 'GET', path: ['reports', 'blocks', 'count'], query: { from_date: now, to_date: now }, repeatable: true, sender: { earlierAttempts: 0 } });
};

const senders = new Map<string, AccountSender>();

/**
 * The sender of the account `data` names, made on first use and kept for the process's life (a
 * few fields while idle), so that what a 413 taught it holds between busy spells.
 */
function senderOf(data: ICredentialDataDecryptedObject | undefined): AccountSender {
	const account = accountOf(data);
	let sender = senders.get(account);
	if (sender === undefined) {
		sender = new AccountSender(gateOf(data), postBody, probeAccount);
		senders.set(account, sender);
	}
	return sender;
}

/** The execution hint of a job that waited for the account's requests or shared them. */
function sharingHint({ waits, requests, companions }: SharingNote): string | undefined {
	const waitedMs = [...waits.values()].reduce((sum, ms) => sum + ms, 0);
	const waited = waitedMs >= 100 ? `Waited ${seconds(waitedMs)} for the account's requests${whyWaited(waits)}.` : '';
	const shared =
		companions === 0
			? ''
			: requests === 1
				? `Its request also carried the transactions of ${counted(companions, 'other execution', 'other executions')} running at the same time.`
				: `Its ${requests} requests also carried transactions of other executions running at the same time (${thousands(companions)}, counted per request).`;
	const message = [waited, shared].filter(Boolean).join(' ');
	return message === '' ? undefined : message;
}

/**
 * Sends the transactions of the items in `order` through the account's sender, and returns the
 * outcome of each: reported by the service (each report with the item's Deduplication Key),
 * failed with its request, refused by the packer (JSON cannot hold it, or it is larger alone than
 * Max Request Bytes), or not sent (the execution was stopped, or Max Wait Seconds passed).
 */
export async function sendTransactions(context: IExecuteFunctions, transactions: ReadonlyArray<unknown>, order: readonly number[], settings: JobSettings): Promise<Outcome[]> {
	if (order.length === 0) return [];
	const { data } = await credentialOf(context);
	const sender = senderOf(data);
	const cancel = context.getExecutionCancelSignal?.();
	let stop = () => {};
	const job = await new Promise<SendJob>((done) => {
		const waiting = new SendJob(context, transactions, order, settings, done);
		stop = () => sender.withdraw(waiting);
		cancel?.addEventListener('abort', stop, { once: true });
		sender.submit(waiting, data);
		if (cancel?.aborted === true) stop();
	});
	cancel?.removeEventListener('abort', stop);
	const hint = sharingHint(job.note);
	if (hint !== undefined) context.addExecutionHints({ message: hint, location: 'outputPane' });
	return job.outcomes;
}

/**
 * Dry Run: the request each transaction would go in and the same refusals, packed as an execution
 * alone packs at Max Request Bytes: sending may pack smaller bodies where the service taught a
 * lower limit (413) or where other executions' transactions share a request.
 */
export function packForDryRun(transactions: ReadonlyArray<unknown>, order: readonly number[], limits: { maxRequestBytes: number; stopAtFailure: boolean }): Outcome[] {
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
