/**
 * One sender of transactions per account in this n8n process: Create executions running at the
 * same time (a shop's rush, a nightly bulk beside it) hand it their transactions, and it sends
 * them in as few requests as is fair (docs/behaviour.md, The Account's Requests):
 * - each execution has at most one request under way, the account `MAX_REQUESTS_UNDER_WAY`, the
 *   second only beside one that has taken `SECOND_REQUEST_AFTER_MS`, and none while the gate risks
 *   one request at a time (after a refusal, until the account takes a request sent since);
 * - the execution that has waited longest leads the next request, and, where its request carries
 *   all it has (it is no bulk), those whose whole rest fits the room left join it, so a small
 *   order never waits behind or inside a large request;
 * - keys are claimed as their transactions leave and given back when the service refuses a
 *   request (SendJob), so nothing waiting holds a key; a 429 or 503 pauses the account (the gate);
 * - Max Wait Seconds counts only time the service took none of an execution's transactions;
 * - a request whose keys were being claimed when the service paused the account or refused a
 *   request waits again (nothing of it had left); once made, a request is never aborted: its
 *   answer decides;
 * - a fault of this code fails the job it came from, and the loop never runs on without giving
 *   n8n's thread a turn.
 */
import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { AccountGate } from '../../transport/accountGate';
import { monotonicMs } from '../../transport/accountGate';
import type { ServiceError } from '../../transport/errors';
import { mayHaveActed as failureMayHaveActed, serviceError } from '../../transport/errors';
import { asksToSlowDown, retryDelayMs } from '../../transport/retry';
import { seconds } from '../../helpers/numbers';
import { joinBodies } from './packing';
import type { QueueReport } from './results';
import type { Part, SendJob } from './sendJob';
import { chooseRequestParts } from './sendJob';

/** The size of the request the parts would make: joined, two arrays share one pair of brackets. */
const bodyBytes = (parts: readonly Part[]) => parts.reduce((sum, part) => sum + part.body.bytes.length - 1, 1);

/** Posts one body of the transactions `contacts` name, for the account, and reads the service's report of each. Throws the transport's `ServiceError`. */
export type PostBody = (
	context: IExecuteFunctions,
	/** `contacts`: the contact each transaction of the body names, in order. */
	request: { body: Buffer; contacts: readonly IDataObject[]; ignoreInvalid: boolean; earlierAttempts: number },
) => Promise<QueueReport[]>;

/**
 * Asks the service, with a request that carries no transaction, whether the account takes
 * requests again: after a refusal, where only a body larger than the gate risks waits. Its
 * answer teaches the account's gate; what it says is not needed.
 */
export type ProbeAccount = (context: IExecuteFunctions) => Promise<void>;

/** Requests of one account under way at once in this process: one for a large sending, one for whoever arrives meanwhile. */
const MAX_REQUESTS_UNDER_WAY = 2;

/** A second request starts only beside one under way this long: a quick one is better waited for, and fewer requests meet the budget. */
const SECOND_REQUEST_AFTER_MS = 200;

/**
 * n8n-workflow's `sleep` cannot be cancelled, so a nap's timer runs out even when the sender is
 * woken earlier: naps stay short, so that none outlives the sender by more than this.
 */
const LONGEST_NAP_MS = 1000;

const BUSY = "other executions' requests were under way";
/** Why the account pauses after a request, or a probe, that did not reach the service. */
const NOT_REACHED = 'the service could not be reached';

export class AccountSender {
	private readonly jobs: SendJob[] = [];

	/** How to leave the account's gate, per job: while a job waits, its credential's pace counts. */
	private readonly gateExits = new Map<SendJob, () => void>();

	/** When each request under way started. */
	private readonly underWay: number[] = [];

	private pumping = false;

	/** The largest body the account takes, as a 413 taught it (half the refused body); it only falls, for the process's life. */
	private accountLimit = Number.POSITIVE_INFINITY;

	/** Probes in a row that got no answer (the service was not reached): each pauses the account longer. */
	private probesUnanswered = 0;

	/** Why the jobs waiting since the last count waited. */
	private reason = BUSY;

	private wake: () => void = () => {};

	constructor(
		private readonly gate: AccountGate,
		private readonly post: PostBody,
		private readonly probe: ProbeAccount,
	) {}

	/** Takes a job; while it waits, the Max Requests per Second of its `credential` counts at the account's gate. */
	submit(job: SendJob, credential: ICredentialDataDecryptedObject | undefined): void {
		this.countWaits();
		this.jobs.push(job);
		this.gateExits.set(job, this.gate.enter(credential));
		this.wake();
		if (!this.pumping) void this.pump();
	}

	/** The job's execution was stopped: what has not left is not sent; a request under way is not aborted here. */
	withdraw(job: SendJob): void {
		job.withdrawn = true;
		this.wake();
	}

	private async pump(): Promise<void> {
		this.pumping = true;
		// The parts of a request being made, until it is handed to `send`: a fault meanwhile gives them up.
		let chosen: Part[] = [];
		try {
			for (this.endStoppedOrOverdueJobs(); this.jobs.length > 0; this.endStoppedOrOverdueJobs()) {
				const waiting = this.jobs.filter((job) => job.isWaiting);
				const wait = Math.max(this.gate.waitMs(), this.placeInMs());
				if (waiting.length === 0 || wait > 0) {
					const deadline = waiting.reduce((first, job) => Math.min(first, job.waits.deadlineMs), Number.POSITIVE_INFINITY);
					// With nothing waiting, only a request's end or a new job changes anything.
					await this.nap(waiting.length === 0 ? Number.POSITIVE_INFINITY : Math.min(wait, deadline - monotonicMs()));
					continue;
				}
				chosen = [];
				// After a refusal, a large body waits until the account takes a request again.
				chooseRequestParts(chosen, waiting, Math.min(this.accountLimit, this.gate.largestBodyToRisk()));
				if (chosen.length > 0) {
					const startMs = this.gate.takeStart();
					// Not awaited: one workflow's slow store must not hold up the account's next request.
					void (bodyBytes(chosen) > this.gate.largestBodyToRisk() ? this.probeFor(chosen) : this.send(chosen, startMs));
					chosen = [];
				}
				// Nothing left (the jobs ended or were stopped): a timer's turn before the next try, so that the loop never holds the thread.
				else await this.nap(1);
			}
		} catch (error) {
			// A fault of this code outside any one job's work: what waits, or was being chosen, is not sent.
			for (const job of [...this.jobs.filter((candidate) => candidate.isWaiting), ...chosen.map((part) => part.job)]) {
				job.giveUp(`Not sent: ${(error as Error).message}`, 'It was not sent, so running it again sends it once.');
			}
			this.endStoppedOrOverdueJobs();
			await this.nap(1);
		} finally {
			this.pumping = false;
			if (this.jobs.length > 0) void this.pump();
		}
	}

	/** How long until a request may start beside those under way (infinite: until one ends). */
	private placeInMs(): number {
		if (this.underWay.length === 0) return 0;
		if (this.underWay.length >= Math.min(MAX_REQUESTS_UNDER_WAY, this.gate.requestsToRisk())) return Number.POSITIVE_INFINITY;
		return Math.max(0, this.underWay[0] + SECOND_REQUEST_AFTER_MS - monotonicMs());
	}

	/** Sleeps `ms` at most (without end: until woken), or until something changes (a job arrives or is stopped, a request ends). */
	private async nap(ms: number): Promise<void> {
		const woken = new Promise<void>((resolve) => (this.wake = resolve));
		await (ms === Number.POSITIVE_INFINITY ? woken : Promise.race([sleep(Math.max(1, Math.min(ms, LONGEST_NAP_MS))), woken]));
		this.wake = () => {};
	}

	/** Counts the time since the last count as waited by every waiting job, then notes why they wait from now on. */
	private countWaits(): void {
		const now = monotonicMs();
		for (const job of this.jobs) job.waits.count(now, this.reason, job.isWaiting);
		this.reason = this.gate.whyWaiting() || BUSY;
	}

	/** Counts the waits, ends the waiting jobs that were stopped or waited past Max Wait Seconds (not sent), and forgets finished jobs. */
	private endStoppedOrOverdueJobs(): void {
		this.countWaits();
		const now = monotonicMs();
		for (const job of this.jobs) {
			if (!job.isWaiting) continue;
			if (job.withdrawn) job.giveUp('Not sent: the execution was stopped before this transaction left', 'It was not sent, so running it again sends it once.');
			else if (now >= job.waits.deadlineMs) this.expire(job);
		}
		for (let index = this.jobs.length - 1; index >= 0; index--) {
			const job = this.jobs[index];
			if (!job.isFinished) continue;
			this.jobs.splice(index, 1);
			this.gateExits.get(job)?.();
			this.gateExits.delete(job);
		}
	}

	private expire(job: SendJob): void {
		const message =
			monotonicMs() >= job.waits.latestMs
				? `Not sent: it stopped waiting before the workflow's Timeout Workflow, which would cancel the execution (n8n's retry of a cancelled execution sends nothing)${job.waits.whyUnserved()}`
				: `Not sent: it waited ${seconds(job.settings.maxWaitSeconds * 1000)} for the account's requests (Max Wait Seconds)${job.waits.whyUnserved()}`;
		job.giveUp(message, `The service did not get it, so running it again sends it once. Requests that carried it and were refused: ${job.refusedRequests}.`);
	}

	/**
	 * After a refusal a transaction larger alone than a probe may be waits, and a request that
	 * carries none asks whether the account takes requests again (its answer teaches the gate).
	 */
	private async probeFor(parts: readonly Part[]): Promise<void> {
		const startedAt = monotonicMs();
		this.underWay.push(startedAt);
		try {
			try {
				await Promise.all(parts.map(async ({ job, body }) => await job.returnToWaiting(body, false)));
			} catch (fault) {
				this.faulted(parts, fault, () => false);
			}
			// They wait again, and their Max Wait Seconds runs on while the probe is under way.
			this.wake();
			await this.probe(parts[0].job.context);
			this.probesUnanswered = 0;
		} catch (error) {
			// An answer, refused or not, taught the gate; a service not reached is tried again after a growing pause.
			if (!/^\d{3}$/.test(String((error as ServiceError).httpCode ?? ''))) {
				this.gate.pause(retryDelayMs(this.probesUnanswered++, undefined), NOT_REACHED);
			} else this.probesUnanswered = 0;
		} finally {
			this.underWay.splice(this.underWay.indexOf(startedAt), 1);
			this.wake();
		}
	}

	/** The keys of the parts claimed; a fault while a job's keys are claimed fails that job's part as not sent, and the others go on. */
	private async claimed(parts: readonly Part[]): Promise<Part[]> {
		const claimed = await Promise.all(
			parts.map(async (part) => {
				try {
					const body = await part.job.claim(part.body);
					return body === undefined ? undefined : { job: part.job, body };
				} catch (fault) {
					this.faulted([part], fault, () => false);
					return undefined;
				}
			}),
		);
		return claimed.filter((part) => part !== undefined);
	}

	/**
	 * Claims the keys of the chosen parts, posts one request and hands each job its answer. What
	 * is stopped before the request leaves stays out of it; once it leaves, nothing aborts it: the
	 * answer decides, as for any order.
	 */
	private async send(chosen: Part[], startMs: number): Promise<void> {
		const startedAt = monotonicMs();
		this.underWay.push(startedAt);
		// From the post on, until the service's answer says it did not act on the request, or, per job, which of its transactions it queued.
		let mayHaveActed = false;
		const queuedOf = new Map<SendJob, boolean>();
		let parts = chosen;
		try {
			parts = await this.claimed(chosen);
			const leaving: Part[] = [];
			for (const part of parts) {
				if (part.job.withdrawn) await part.job.returnToWaiting(part.body, false);
				else leaving.push(part);
			}
			// Nothing has left yet: where the service paused the account or refused a request meanwhile, all of it waits again.
			if (this.gate.heldBackSince(startedAt)) {
				for (const part of leaving.splice(0)) await part.job.returnToWaiting(part.body, false);
			}
			if (leaving.length === 0) return void this.gate.returnStart(startMs);
			const body = joinBodies(leaving.map((part) => part.body.bytes));
			const count = leaving.reduce((sum, part) => sum + part.body.end - part.body.start, 0);
			const [{ job: head }] = leaving;
			let earlierAttempts = 0;
			for (const { job } of leaving) {
				job.post();
				job.note.companions += leaving.length - 1;
				earlierAttempts = Math.max(earlierAttempts, job.refusedRequests);
			}
			mayHaveActed = true;
			let reports: QueueReport[];
			try {
				const contacts = leaving.flatMap((part) => part.job.contactsOf(part.body));
				reports = await this.post(head.context, { body, contacts, ignoreInvalid: head.settings.ignoreInvalid, earlierAttempts });
			} catch (error) {
				const failure = error as ServiceError;
				// A refusal (4xx) or what never reached the service did nothing, whatever becomes of its handling.
				mayHaveActed = failureMayHaveActed(failure);
				await this.answerFailure(leaving, failure, body.length, count);
				return;
			}
			// Every job's answer is read before any is handed over: a fault in handing one over must not make the others' unknown.
			let offset = 0;
			const answers = leaving.map((part) => {
				const answered = reports.slice(offset, (offset += part.body.end - part.body.start));
				queuedOf.set(part.job, answered.some((report) => report.queued));
				return answered;
			});
			leaving.forEach((part, index) => part.job.reported(part.body, answers[index]));
		} catch (fault) {
			this.faulted(parts, fault, (job) => queuedOf.get(job) ?? mayHaveActed);
		} finally {
			this.underWay.splice(this.underWay.indexOf(startedAt), 1);
			this.wake();
		}
	}

	/**
	 * A request the service did not act on goes again: after a 413 at half its size, after a 429
	 * or 503 when the gate's pause is over, when the service could not be reached after a backoff.
	 * Any other failure is its transactions' outcome.
	 */
	private async answerFailure(parts: readonly Part[], failure: ServiceError, bytes: number, count: number): Promise<void> {
		const status = Number(failure.httpCode);
		const tooLarge = status === 413;
		if (!failure.notProcessed || (tooLarge && count === 1)) {
			for (const { job, body } of parts) job.failed(body, failure);
			return;
		}
		if (tooLarge) this.accountLimit = Math.min(this.accountLimit, Math.floor(bytes / 2));
		else if (!asksToSlowDown(status)) {
			const refused = parts.reduce((most, { job }) => Math.max(most, job.refusedRequests + 1), 0);
			this.gate.pause(retryDelayMs(refused - 1, undefined), NOT_REACHED);
		}
		await Promise.all(parts.map(async ({ job, body }) => await job.returnToWaiting(body, true)));
	}

	/**
	 * A fault of this code while a request was made ready or its answer handled: the parts not yet
	 * decided fail, as not sent or, where the service `mayHaveActed` on a job's request, as maybe queued.
	 */
	private faulted(parts: readonly Part[], fault: unknown, mayHaveActed: (job: SendJob) => boolean): void {
		const { message } = fault as Error;
		for (const { job } of parts) {
			const body = job.currentBody;
			if (body === undefined) continue;
			const failure = mayHaveActed(job)
				? { message, description: 'The service may have queued these transactions. Check in the platform before you send them again.', outcomeUnknown: true }
				: { message: `Not sent: ${message}`, description: 'Run the workflow again.', notProcessed: true };
			job.failed(body, serviceError(job.context, failure));
		}
		this.wake();
	}
}
