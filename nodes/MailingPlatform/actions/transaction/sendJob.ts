/**
 * One execution's transactions while they wait for their account's requests: where packing has
 * got to, the outcomes so far, and how the execution learns them. The account's sender
 * (accountSender.ts) takes bodies from the jobs waiting and tells each what became of them.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { InputProblem } from '../../helpers/values';
import type { ServiceError } from '../../transport/errors';
import { serviceError } from '../../transport/errors';
import { monotonicMs } from '../../transport/accountGate';
import type { Body, PackingLimits, Refusal } from './packing';
import { packBodies } from './packing';
import type { Outcome, QueueReport } from './results';
import { alreadyQueued } from './results';

export interface JobSettings {
	/** Max Request Bytes: no body is larger, and a transaction larger alone is refused. */
	maxRequestBytes: number;
	/** Without continue-on-fail the node stops at a failure: nothing after it is sent. */
	stopAtFailure: boolean;
	ignoreInvalid: boolean;
	/** Max Wait Seconds: how long a transaction may wait for the account's requests. */
	maxWaitSeconds: number;
	/** Each item's Deduplication Key, put into its report. */
	keys?: readonly string[];
}

/** What the execution hint says of the job's wait and of the requests it shared. */
export interface SharingNote {
	waitedMs: number;
	reasons: Set<string>;
	/** Requests that carried its transactions. */
	requests: number;
	/** Other executions whose transactions went in the same requests, counted per request. */
	companions: number;
}

/** A refusal by the packer as the item's outcome; the transactions queued before it are named in its hint. */
export function refusedOutcome({ start, refusal }: Refusal, order: readonly number[], queuedBefore: number): Outcome {
	const earlier = queuedBefore === 0 ? '' : ` ${alreadyQueued(queuedBefore)}.`;
	return { kind: 'refused', itemIndexes: [order[start]], problem: new InputProblem(refusal.problem, refusal.hint + earlier) };
}

export class SendJob {
	readonly outcomes: Outcome[] = [];

	readonly note: SharingNote = { waitedMs: 0, reasons: new Set(), requests: 0, companions: 0 };

	/** Requests that carried some of its transactions and were refused (429, 503, 413, not reached), then sent again. */
	attempts = 0;

	/** Whether its transactions are in the request under way. */
	inFlight = false;

	/** The execution was stopped: nothing more of it is sent. */
	withdrawn = false;

	readonly deadlineMs: number;

	private readonly limits: PackingLimits;

	/** The position in `order` of the first transaction not yet taken from packing. */
	private from = 0;

	private bodies: Generator<Body | Refusal> | undefined;

	/** A body packing gave that did not fit the last request: the next one starts with it. */
	private held: Body | undefined;

	private queued = 0;

	private finished = false;

	constructor(
		readonly context: IExecuteFunctions,
		readonly transactions: ReadonlyArray<unknown>,
		readonly order: readonly number[],
		readonly settings: JobSettings,
		private readonly done: (job: SendJob) => void,
	) {
		this.limits = { limit: settings.maxRequestBytes, maxBytes: settings.maxRequestBytes };
		this.deadlineMs = monotonicMs() + settings.maxWaitSeconds * 1000;
	}

	get isFinished(): boolean {
		return this.finished;
	}

	/**
	 * Its next body within `room` bytes, or undefined when it has none left. As the `first` of a
	 * request it may be larger (a transaction above the limit goes alone); else such a body is held
	 * for the next request. Refusals on the way become outcomes; without continue-on-fail the job
	 * ends at the first.
	 */
	nextBody(room: number, first: boolean): Body | undefined {
		if (this.held !== undefined) return first || this.held.bytes.length <= room ? this.take(this.held) : undefined;
		// The sender's room is never above this job's Max Request Bytes.
		this.limits.limit = room;
		this.bodies ??= packBodies(this.transactions, this.order, this.from, this.limits);
		for (let next = this.bodies.next(); !next.done && !this.finished; next = this.bodies.next()) {
			if ('refusal' in next.value) {
				this.from = next.value.end;
				this.decide(refusedOutcome(next.value, this.order, this.queued), this.settings.stopAtFailure);
				continue;
			}
			this.from = next.value.end;
			if (first || next.value.bytes.length <= room) return next.value;
			this.held = next.value;
			return undefined;
		}
		if (!this.finished && this.held === undefined) this.finish();
		return undefined;
	}

	/** The service answered: `reports` belong to the body's transactions, in order. */
	reported(body: Body, reports: readonly QueueReport[]): void {
		const itemIndexes = this.order.slice(body.start, body.end);
		const { keys } = this.settings;
		if (keys !== undefined) reports.forEach((report, position) => (report.deduplicationKey = keys[itemIndexes[position]]));
		for (const report of reports) if (report.queued) this.queued++;
		this.decide({ kind: 'reported', itemIndexes, reports }, false);
		this.finishIfAllSent();
	}

	/** The body's request failed as a whole, and is not sent again. */
	failed(body: Body, error: ServiceError): void {
		this.decide({ kind: 'failed', itemIndexes: this.order.slice(body.start, body.end), error }, this.settings.stopAtFailure);
		this.finishIfAllSent();
	}

	/** The body's request was refused before the service acted on it: its transactions wait for the next request. */
	sendAgain(body: Body): void {
		this.from = body.start;
		this.bodies = undefined;
		this.held = undefined;
	}

	/** Ends the job: every transaction not yet sent fails with `message`, as not processed. */
	giveUp(message: string, description: string): void {
		if (this.finished) return;
		const rest = this.order.slice(this.held?.start ?? this.from);
		if (rest.length > 0) {
			const error = serviceError(this.context, { message, description, notProcessed: true }, rest[0]);
			this.outcomes.push({ kind: 'failed', itemIndexes: rest, error });
		}
		this.finish();
	}

	/** Packing has passed the last transaction and nothing is held: every item has its outcome. */
	private finishIfAllSent(): void {
		if (this.from >= this.order.length && this.held === undefined) this.finish();
	}

	private take(body: Body): Body {
		this.held = undefined;
		return body;
	}

	private decide(outcome: Outcome, stop: boolean): void {
		this.outcomes.push(outcome);
		if (stop) this.finish();
	}

	private finish(): void {
		if (this.finished) return;
		this.finished = true;
		this.bodies = undefined;
		this.held = undefined;
		this.done(this);
	}
}
