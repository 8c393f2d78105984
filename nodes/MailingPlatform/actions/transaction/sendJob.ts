/**
 * One execution's transactions while they wait for, and go out in, their account's requests:
 * where packing has got to, the outcomes so far, how long they waited and why, and how the
 * execution learns that they are done. The account's sender (accountSender.ts) takes bodies from
 * the jobs waiting and tells each what became of them.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { ServiceError } from '../../transport/errors';
import { serviceError } from '../../transport/errors';
import { monotonicMs } from '../../transport/accountGate';
import type { KeyClaims } from './deduplication';
import type { Body, PackingLimits, Refusal } from './packing';
import { packBodies } from './packing';
import type { Outcome, QueueReport } from './results';
import { refusedOutcome } from './results';
import type { Waits } from './waits';
import { WaitClock } from './waits';

export interface JobSettings {
	/** Max Request Bytes: no body is larger, and a transaction larger alone is refused. */
	maxRequestBytes: number;
	/** Without continue-on-fail the node stops at a failure: nothing after it is sent. */
	stopAtFailure: boolean;
	ignoreInvalid: boolean;
	/** Max Wait Seconds: how long the job may wait for the account while the service takes none of its transactions. */
	maxWaitSeconds: number;
	/** With a Deduplication Key: claims each transaction's key as it leaves, and settles it by its outcome. */
	keys?: KeyClaims;
}

/** What the execution hint says of the job's waits and of the requests it shared. */
export interface SharingNote {
	waits: Waits;
	/** Requests that carried its transactions. */
	requests: number;
	/** Other executions whose transactions went in the same requests, counted per request. */
	companions: number;
}

export class SendJob {
	readonly outcomes: Outcome[] = [];

	readonly note: SharingNote;

	/** How long it waited for the account's requests and why; when Max Wait Seconds runs out. */
	readonly waits: WaitClock;

	/** Requests that carried some of its transactions and were refused (429, 503, 413, not reached). */
	refusals = 0;

	/** The execution was stopped: nothing more of it is sent. */
	withdrawn = false;

	/** When it last began to wait: the execution that has waited longest leads the next request. */
	waitingSinceMs: number;

	/** Its body from the moment it is chosen for a request until the service's answer is handled. */
	private departing: Body | undefined;

	private departedAtMs = 0;

	private readonly limits: PackingLimits;

	/** The position in `order` of the first transaction not yet taken from packing. */
	private from = 0;

	private bodies: Generator<Body | Refusal> | undefined;

	/** A body packed to join a request, which it did not: the next request it leads starts with it. */
	private held: Body | undefined;

	private queued = 0;

	private finished = false;

	constructor(
		readonly context: IExecuteFunctions,
		readonly transactions: ReadonlyArray<unknown>,
		/** The item indexes to send; transactions skipped by their key as they left are taken out. */
		private order: readonly number[],
		readonly settings: JobSettings,
		private readonly done: (job: SendJob) => void,
	) {
		this.limits = { limit: settings.maxRequestBytes, maxBytes: settings.maxRequestBytes };
		this.waits = new WaitClock(settings.maxWaitSeconds * 1000);
		this.note = { waits: this.waits.total, requests: 0, companions: 0 };
		this.waitingSinceMs = monotonicMs();
	}

	get isFinished(): boolean {
		return this.finished;
	}

	/** Whether it has transactions waiting for a request: none of its own is being made or under way. */
	get isWaiting(): boolean {
		return !this.finished && this.departing === undefined;
	}

	/**
	 * Its next body within `room` bytes, or undefined. Leading a request, it packs as much as the
	 * room takes (a transaction above the room goes alone). Joining one, it gives only a body that
	 * holds all it has left, so that a large execution never makes a small one's request slow; a
	 * body packed for joining that is not its last is held for the next request it leads. Refusals
	 * on the way become outcomes; without continue-on-fail the job ends at the first.
	 */
	nextBody(room: number, leading: boolean): Body | undefined {
		if (this.held !== undefined) {
			if (this.held.bytes.length <= room && (leading || this.isLast(this.held))) return this.take(this.held);
			if (!leading) return undefined;
			// Packed for a larger room than the account now takes (a 413 taught it): packed again.
			this.packFrom(this.held.start);
		}
		this.limits.limit = room;
		this.bodies ??= packBodies(this.transactions, this.order, this.from, this.limits);
		for (let next = this.bodies.next(); !next.done && !this.finished; next = this.bodies.next()) {
			this.from = next.value.end;
			if ('refusal' in next.value) {
				this.decide(refusedOutcome(next.value, this.order, this.queued), this.settings.stopAtFailure);
				continue;
			}
			if (leading || (this.isLast(next.value) && next.value.bytes.length <= room)) return this.take(next.value);
			this.held = next.value;
			return undefined;
		}
		if (!this.finished && this.held === undefined) this.finish();
		return undefined;
	}

	/**
	 * Claims the keys of the body's transactions as it leaves. Those whose key is taken are
	 * skipped and leave the body, which is packed again without them (it only gets smaller);
	 * undefined when none is left.
	 */
	async claim(body: Body): Promise<Body | undefined> {
		const { keys } = this.settings;
		if (keys === undefined) return body;
		const decided = await keys.claim(this.order.slice(body.start, body.end));
		if (decided.length === 0) return body;
		for (const outcome of decided) this.outcomes.push(outcome);
		// n8n's store could not be asked: a failure, where the node stops without continue-on-fail.
		const failed = decided.some((outcome) => outcome.kind === 'refused');
		const left = new Set(this.order.slice(body.start, body.end));
		for (const outcome of decided) for (const itemIndex of outcome.itemIndexes) left.delete(itemIndex);
		this.order = [...this.order.slice(0, body.start), ...left, ...this.order.slice(body.end)];
		this.packFrom(body.start + left.size);
		if (left.size === 0 || (failed && this.settings.stopAtFailure)) {
			this.departing = undefined;
			if (failed && this.settings.stopAtFailure) this.finish();
			else this.finishIfAllSent();
			return undefined;
		}
		const [again] = packBodies(this.transactions, this.order.slice(0, body.start + left.size), body.start, { limit: body.bytes.length, maxBytes: this.settings.maxRequestBytes });
		return (this.departing = again as Body);
	}

	/** The request carrying `body` is about to be posted. */
	depart(): void {
		this.departedAtMs = monotonicMs();
		this.note.requests++;
	}

	/** The service answered: `reports` belong to the body's transactions, in order. */
	reported(body: Body, reports: readonly QueueReport[]): void {
		const itemIndexes = this.order.slice(body.start, body.end);
		const { keys } = this.settings;
		if (keys !== undefined) reports.forEach((report, position) => (report.deduplicationKey = keys.keyOf(itemIndexes[position])));
		for (const report of reports) if (report.queued) this.queued++;
		this.served({ kind: 'reported', itemIndexes, reports }, false);
	}

	/** The body's request failed as a whole, and is not sent again. */
	failed(body: Body, error: ServiceError): void {
		this.served({ kind: 'failed', itemIndexes: this.order.slice(body.start, body.end), error }, this.settings.stopAtFailure);
	}

	/**
	 * The body's request was refused before the service acted on it (`reason`): its keys are given
	 * back, so that nothing waiting holds a key, and its transactions wait for the next request.
	 */
	async sendAgain(body: Body, reason: string): Promise<void> {
		this.refusals++;
		this.waits.refused(reason, this.departedAtMs);
		await this.putBack(body, `the service refused its request (${reason})`);
	}

	/**
	 * The body leaves no request after all: refused, or its execution was stopped while its keys
	 * were claimed (`why`). A key that cannot be given back would skip its own transaction as taken,
	 * so those transactions fail as not sent instead of waiting.
	 */
	async putBack(body: Body, why: string): Promise<void> {
		const itemIndexes = this.order.slice(body.start, body.end);
		const released = (await this.settings.keys?.release(itemIndexes)) ?? true;
		this.departing = undefined;
		if (released) {
			this.packFrom(body.start);
			return;
		}
		const error = serviceError(this.context, { message: `Not sent: ${why}, and its Deduplication Key could not be given back`, notProcessed: true }, itemIndexes[0]);
		this.decide({ kind: 'failed', itemIndexes, error }, this.settings.stopAtFailure);
		this.finishIfAllSent();
	}

	/** Its body chosen for a request whose answer is not handled yet, if any. */
	get departingBody(): Body | undefined {
		return this.departing;
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

	private isLast(body: Body): boolean {
		return body.end === this.order.length;
	}

	private take(body: Body): Body {
		this.held = undefined;
		return (this.departing = body);
	}

	private packFrom(position: number): void {
		this.from = position;
		this.bodies = undefined;
		this.held = undefined;
	}

	private served(outcome: Outcome, stop: boolean): void {
		this.departing = undefined;
		this.waitingSinceMs = monotonicMs();
		this.waits.served();
		this.settings.keys?.settle(outcome);
		this.decide(outcome, stop);
		this.finishIfAllSent();
	}

	/** Packing has passed the last transaction and nothing is held or under way: every item has its outcome. */
	private finishIfAllSent(): void {
		if (this.from >= this.order.length && this.held === undefined && this.departing === undefined) this.finish();
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
