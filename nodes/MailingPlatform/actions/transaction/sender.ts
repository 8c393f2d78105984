/**
 * Sending Create's records: packed into bodies at the current limit, each body posted once
 * (transactions are not idempotent), and the service's report of it read.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { thousands } from '../../helpers/numbers';
import { InputProblem, isPlainObject } from '../../helpers/values';
import type { ServiceResponse } from '../../transport';
import { apiRequest } from '../../transport';
import { serviceError, ServiceError } from '../../transport/errors';
import type { QueueReport, RequestFailure, SendableRecord } from './outcomes';
import type { Body } from './packing';
import { packBodies } from './packing';

/** The reports of a request's transactions in body order, or `tooLarge` (413: nothing was queued). Throws the transport's error. */
export type PostTransactions = (body: Buffer, count: number, firstItemIndex: number) => Promise<QueueReport[] | 'tooLarge'>;

function readQueued(value: unknown): boolean | undefined {
	if (value === true || value === 'true') return true;
	if (value === false || value === 'false') return false;
	return undefined;
}

/**
 * Entry i of the answer belongs to transaction i. The wrapper is `reports` or `report` (the spec
 * shows both) and `queued` a boolean or "true"/"false". A count that does not match is a problem:
 * pairing by guesswork could mark an e-mail as sent that was not, or the other way round.
 */
function queueReports(context: IExecuteFunctions, response: ServiceResponse, count: number, firstItemIndex: number): QueueReport[] {
	const unreadable = (problem: string) =>
		serviceError(context, {
			message: `The service's report could not be matched to the transactions sent: ${problem}`,
			description: 'The request was accepted, so some of these transactions may have been queued. Check in the platform before you send them again.',
			httpCode: response.statusCode,
			outcomeUnknown: true,
		}, firstItemIndex);
	let parsed: unknown;
	try {
		parsed = JSON.parse(response.body);
	} catch {
		throw unreadable('the answer is not JSON');
	}
	const wrapper = isPlainObject(parsed) ? parsed : {};
	const list = Array.isArray(wrapper.reports) ? wrapper.reports : Array.isArray(wrapper.report) ? wrapper.report : undefined;
	if (list === undefined) throw unreadable('the answer has no "reports" or "report" list');
	if (list.length !== count) throw unreadable(`the answer has ${list.length} report entries for ${count} transactions sent`);
	const reports: QueueReport[] = [];
	for (const [index, entry] of list.entries()) {
		const queued = isPlainObject(entry) ? readQueued(entry.queued) : undefined;
		if (!isPlainObject(entry) || queued === undefined) throw unreadable(`report entry ${index + 1} has no readable "queued" value`);
		const report: QueueReport = { queued, contact: (entry.contact ?? null) as IDataObject | null };
		if (typeof entry.message === 'string') report.message = entry.message;
		else if (!queued) report.message = 'The service did not queue the transaction and gave no reason.';
		reports.push(report);
	}
	return reports;
}

export function transactionPoster(context: IExecuteFunctions, ignoreInvalid: boolean): PostTransactions {
	return async (body, count, firstItemIndex) => {
		const response = await apiRequest.call(context, {
			method: 'POST',
			path: ['transactions'],
			query: { ignore_invalid_transactions: ignoreInvalid },
			jsonBody: body,
			repeatable: false,
			passStatuses: [413],
			itemIndex: firstItemIndex,
			errorDescriptions: {
				400: ignoreInvalid
					? 'The service refused the request body. None of its transactions was queued.'
					: 'With Ignore Invalid Transactions off, one invalid transaction fails its whole request, and none of its transactions was queued. Fix the transaction named in the message, or turn the option on.',
			},
		});
		if (response.statusCode === 413 && count > 1) return 'tooLarge';
		if (response.statusCode === 413) {
			throw serviceError(context, {
				message: `The service refused the transaction as too large (413), even sent alone (${thousands(body.length)} bytes)`,
				description: 'Its limit is lower than documented. Make the content or attachments of this item smaller.',
				httpCode: 413,
			}, firstItemIndex);
		}
		return queueReports(context, response, count, firstItemIndex);
	};
}

/**
 * Sends records in bodies packed at its current limit, each transaction at most once, and settles
 * every record it was given: reported, failed with its request, refused when it alone exceeds Max
 * Request Bytes or JSON cannot express it, or (without `post`, a dry run) shown with the request
 * it would go in. The limit starts at Max
 * Request Bytes; a 413 says the account's limit is lower, so it drops to half the refused body,
 * which is packed again, as is every later body. With `stopAtFailure` nothing is sent after a failure.
 */
export class Sender {
	private limit: number;

	/** Transactions the service queued so far. */
	private queued = 0;

	private requests = 0;

	private stopped = false;

	constructor(
		private readonly post: PostTransactions | undefined,
		private readonly maxRequestBytes: number,
		private readonly stopAtFailure: boolean,
	) {
		this.limit = maxRequestBytes;
	}

	async send(records: readonly SendableRecord[]): Promise<void> {
		for (const body of this.pack(records)) {
			await this.sendBody(body);
			if (this.stopped) return;
		}
	}

	private pack(records: readonly SendableRecord[]): Generator<Body> {
		const unwritable = (record: SendableRecord, error: Error) =>
			this.refuse(record, `The transaction cannot be written as JSON: ${error.message}`, 'Remove the value JSON cannot hold (e.g. a BigInt or a circular reference).');
		return packBodies(records, () => this.limit, unwritable);
	}

	private refuse(record: SendableRecord, problem: string, hint: string): void {
		// Bodies go out as they are packed, so earlier items may be queued already when this one is found.
		const earlier = this.queued === 0 ? '' : ` ${thousands(this.queued)} items of earlier requests were already queued.`;
		record.outcome = { kind: 'refused', problem: new InputProblem(problem, hint + earlier) };
		this.stopped ||= this.stopAtFailure;
	}

	private async sendBody({ records, bytes }: Body): Promise<void> {
		// Refused only above the user's limit: one lowered after a 413 is a guess, so the service decides.
		if (records.length === 1 && bytes.length > this.maxRequestBytes) {
			const size = `The transaction alone is ${thousands(bytes.length - 2)} bytes as JSON, more than one request may carry (${thousands(this.maxRequestBytes)} bytes)`;
			return this.refuse(records[0], size, 'Make its content or attachments smaller.');
		}
		if (this.post === undefined) {
			const request = { number: ++this.requests, bytes: bytes.length, transactions: records.length };
			for (const record of records) record.outcome = { kind: 'dryRun', request };
			return;
		}
		let reports;
		try {
			reports = await this.post(bytes, records.length, records[0].itemIndex);
		} catch (error) {
			const failure = {
				error: error as RequestFailure['error'],
				// The transport says whether the service got the request; of any other failure nobody knows.
				outcomeUnknown: !(error instanceof ServiceError) || error.outcomeUnknown,
				itemIndexes: records.map((record) => record.itemIndex),
				queuedBefore: this.queued,
			};
			for (const record of records) record.outcome = { kind: 'failed', failure };
			this.stopped = this.stopAtFailure;
			return;
		}
		if (reports === 'tooLarge') {
			// A 413 queues nothing, so the same transactions may go again in smaller bodies.
			this.limit = Math.min(this.limit, Math.floor(bytes.length / 2));
			return await this.send(records);
		}
		reports.forEach((report, index) => {
			records[index].outcome = { kind: 'reported', report };
			if (report.queued) this.queued++;
		});
	}
}
