/**
 * One execution's transactions while they wait for, and go out in, their account's requests:
 * where packing has got to (packingCursor.ts), the outcomes so far, how long they waited and why,
 * and how the execution learns that they are done; and which waiting jobs' bodies make the next
 * request. The account's sender (accountSender.ts) takes those bodies and tells each job what
 * became of them.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { ServiceError } from '../../transport/errors';
import { serviceError } from '../../transport/errors';
import { monotonicMs } from '../../transport/accountGate';
import type { KeyClaims } from './deduplication';
import type { Body } from './packing';
import { PackingCursor } from './packingCursor';
import type { Outcome, QueueReport } from './results';
import { refusedOutcome } from './results';
import { contactOf } from './transaction';
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
	/** When waiting ends at the latest, before the workflow's timeout (waits.ts, `beforeTimeoutMs`). */
	latestMs?: number;
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

/** A job's body in the next request. */
export interface Part {
	job: SendJob;
	body: Body;
}

/** Why a job waited before it reached the sender: another execution of the process held some of its keys (KeyClaims.hold). */
const SAME_KEY_ELSEWHERE = 'another execution was sending a transaction with the same Deduplication Key';

/** An execution of more transactions than this is a bulk: no other execution's transactions share its requests. */
const LARGEST_SHARING_EXECUTION = 10;

/**
 * Chooses the next request's `parts`, added as they are chosen (so that a fault still knows
 * them): the job that has waited longest leads with its next body; if that body is all the job
 * has and the job is no bulk, jobs of no bulk whose whole rest fits in the room left join it,
 * longest waiting first, so that a small order rides in no bulk's request. A job with Ignore
 * Invalid Transactions off neither joins nor is joined: one invalid transaction fails its whole
 * request. `accountLimit`: the largest body the account takes. A job whose packing throws (a fault
 * of this code) ends, its transactions not sent, and the others go on.
 */
export function chooseRequestParts(parts: Part[], waiting: readonly SendJob[], accountLimit: number): void {
	let limit = accountLimit;
	let size = 0;
	for (const job of [...waiting].sort((a, b) => a.waitingSinceMs - b.waitingSinceMs)) {
		const leading = parts.length === 0;
		if (!leading && !(job.mayShare && parts[0].job.mayShare && parts[0].job.isWhole(parts[0].body))) continue;
		const jobLimit = Math.min(limit, job.settings.maxRequestBytes);
		let body: Body | undefined;
		try {
			// Joined, the two arrays share one pair of brackets.
			body = job.choose(leading ? jobLimit : jobLimit - size + 1, leading);
		} catch (fault) {
			job.giveUp(`Not sent: ${(fault as Error).message}`, 'It was not sent, so running it again sends it once.');
			continue;
		}
		if (body === undefined) continue;
		size = leading ? body.bytes.length : size + body.bytes.length - 1;
		limit = jobLimit;
		parts.push({ job, body });
		if (!job.mayShare) break;
	}
}

export class SendJob {
	readonly outcomes: Outcome[] = [];

	readonly note: SharingNote;

	/** How long it waited for the account's requests and why; when Max Wait Seconds runs out. */
	readonly waits: WaitClock;

	/** Requests that carried some of its transactions and were refused (429, 503, 413, not reached). */
	refusedRequests = 0;

	/** The execution was stopped: nothing more of it is sent. */
	withdrawn = false;

	/** When it last began to wait: the execution that has waited longest leads the next request. */
	waitingSinceMs: number;

	/** Its body in a request, from the moment it is chosen until the service's answer is handled. */
	private current: Body | undefined;

	/** Whether the current body's request was posted: from then on only its answer decides it. */
	private posted = false;

	private readonly packing: PackingCursor;

	private queued = 0;

	private finished = false;

	constructor(
		readonly context: IExecuteFunctions,
		private readonly transactions: ReadonlyArray<unknown>,
		/** The item indexes to send; transactions skipped by their key as they left are taken out. */
		order: readonly number[],
		readonly settings: JobSettings,
		private readonly done: (job: SendJob) => void,
	) {
		this.packing = new PackingCursor(transactions, order, settings.maxRequestBytes);
		this.waits = new WaitClock(settings.maxWaitSeconds * 1000, settings.latestMs);
		if (settings.keys !== undefined) this.waits.waited(settings.keys.waitedMs, SAME_KEY_ELSEWHERE);
		this.note = { waits: this.waits.total, requests: 0, companions: 0 };
		this.waitingSinceMs = monotonicMs();
	}

	get isFinished(): boolean {
		return this.finished;
	}

	/** Whether it has transactions waiting for a request: none of its own is being made or under way. */
	get isWaiting(): boolean {
		return !this.finished && this.current === undefined;
	}

	/**
	 * Whether its requests may carry other executions' transactions: it is no bulk, and with
	 * Ignore Invalid Transactions off one invalid transaction would fail its whole request.
	 */
	get mayShare(): boolean {
		return this.settings.ignoreInvalid && this.packing.order.length <= LARGEST_SHARING_EXECUTION;
	}

	/** Whether `body` carries all the job has to send (those whose key was taken left it). */
	isWhole(body: Body): boolean {
		return body.start === 0 && body.end === this.packing.order.length;
	}

	/**
	 * Packs its next body within `room` bytes, or answers undefined (PackingCursor.next): joining
	 * a request, only a body that holds all it has left, so that a large execution never makes a
	 * small one's request slow. A transaction no request can carry becomes its item's outcome on
	 * the way; without continue-on-fail that ends the job, as does having nothing left.
	 */
	choose(room: number, leading: boolean): Body | undefined {
		const body = this.packing.next(room, leading, (refusal) => {
			this.decide(refusedOutcome(refusal, this.packing.order, this.queued), this.settings.stopAtFailure);
			return !this.finished;
		});
		if (body !== undefined) return (this.current = body);
		this.finishIfAllSent();
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
		const decided = await keys.claim(this.packing.itemsOf(body));
		if (decided.length === 0) return body;
		for (const outcome of decided) this.outcomes.push(outcome);
		// n8n's store could not be asked: a failure, where the node stops without continue-on-fail.
		const stop = this.settings.stopAtFailure && decided.some((outcome) => outcome.kind === 'refused');
		const rest = this.packing.without(body, new Set(decided.flatMap((outcome) => outcome.itemIndexes)));
		this.current = stop ? undefined : rest;
		// A body its claim emptied leaves the request: the claim's time (reading marks of keys found) is not waiting.
		if (this.current === undefined) this.leaveRequest();
		if (stop) this.finish();
		else this.finishIfAllSent();
		return this.current;
	}

	/** The contact each transaction of `body` names, in order: the service's report names it too. */
	contactsOf(body: Body): IDataObject[] {
		return this.packing.itemsOf(body).map((itemIndex) => contactOf(this.transactions[itemIndex] as IDataObject));
	}

	/** The request carrying its current body is about to be posted. */
	post(): void {
		this.posted = true;
		this.note.requests++;
	}

	/** The service answered: `reports` belong to the body's transactions, in order; Max Wait Seconds starts again. */
	reported(body: Body, reports: readonly QueueReport[]): void {
		const itemIndexes = this.packing.itemsOf(body);
		const { keys } = this.settings;
		if (keys !== undefined) reports.forEach((report, position) => (report.deduplicationKey = keys.keyOf(itemIndexes[position])));
		for (const report of reports) if (report.queued) this.queued++;
		this.waits.served();
		this.answered({ kind: 'reported', itemIndexes, reports }, false);
	}

	/** The body's request failed as a whole, and is not sent again. */
	failed(body: Body, error: ServiceError): void {
		this.answered({ kind: 'failed', itemIndexes: this.packing.itemsOf(body), error }, this.settings.stopAtFailure);
	}

	/**
	 * The body goes back to waiting, its keys released so that nothing waiting holds a key: the
	 * service `refused` its request without acting on it (the request's own time is not counted
	 * as waited), or its execution was stopped before it left.
	 */
	async returnToWaiting(body: Body, refused: boolean): Promise<void> {
		if (refused) this.refusedRequests++;
		await this.settings.keys?.release(this.packing.itemsOf(body));
		this.unchoose(body);
	}

	private unchoose(body: Body): void {
		this.leaveRequest();
		this.packing.rewind(body.start);
	}

	/** Its body is out of the request it was in; the time it spent there is not counted as waited. */
	private leaveRequest(): void {
		this.current = undefined;
		this.posted = false;
		this.waits.count(monotonicMs(), '', false);
	}

	/** Its body in a request whose answer is not handled yet, if any. */
	get currentBody(): Body | undefined {
		return this.current;
	}

	/**
	 * Ends the job: every transaction not yet sent fails with `message`, as not processed, a body
	 * chosen for a request that a fault stopped before its keys were claimed included.
	 */
	giveUp(message: string, description: string): void {
		if (this.finished) return;
		if (this.current !== undefined && !this.posted) this.unchoose(this.current);
		const rest = this.packing.rest();
		if (rest.length > 0) {
			const error = serviceError(this.context, { message, description, notProcessed: true }, rest[0]);
			this.outcomes.push({ kind: 'failed', itemIndexes: rest, error });
		}
		this.finish();
	}

	/** The body's request ended for good with `outcome`: its keys are settled by it. */
	private answered(outcome: Outcome, stop: boolean): void {
		this.leaveRequest();
		this.waitingSinceMs = monotonicMs();
		this.decide(outcome, stop);
		this.settings.keys?.settle(outcome);
		this.finishIfAllSent();
	}

	/** Packing has passed the last transaction and nothing is held or under way: every item has its outcome. */
	private finishIfAllSent(): void {
		if (this.packing.passedAll && this.current === undefined) this.finish();
	}

	private decide(outcome: Outcome, stop: boolean): void {
		this.outcomes.push(outcome);
		if (stop) this.finish();
	}

	private finish(): void {
		if (this.finished) return;
		this.finished = true;
		this.done(this);
	}
}
