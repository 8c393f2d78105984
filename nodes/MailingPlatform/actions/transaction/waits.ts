/**
 * How long one execution's transactions waited for their account's requests and why, and when
 * Max Wait Seconds runs out. It counts only time in which they waited and the service took none of
 * them; the time their own requests are under way does not count, refused or not, so an execution
 * whose requests go out one after the other is never cut off, however long they take.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { seconds } from '../../helpers/numbers';
import { monotonicMs } from '../../transport/accountGate';

/**
 * How long before the workflow's timeout waiting ends at most: time for what is under way then (a
 * request, n8n's store settling its keys: 0.3 to 1.5 s a call on a busy n8n 2.41.1) and for n8n to
 * save the execution. One second was too little there: ending a second before a 3 s timeout, the
 * timeout still cancelled 99 of 241 executions. A timeout under 15 s keeps a third of itself.
 */
const BEFORE_TIMEOUT_MS = 5000;

/** What n8n hands every node's context but not its API: the moment (of `Date.now`) its timeout cancels the execution. */
interface TimeoutMoment {
	additionalData?: { executionTimeoutTimestamp?: unknown };
}

/**
 * When waiting must end for n8n's workflow timeout: n8n's retry of an execution its timeout
 * cancelled mid-node runs nothing again (n8n saves it with no node left to run), so orders still
 * waiting then fail as not sent first, which a retry sends. n8n counts the timeout from the
 * execution's start (on a busy n8n seconds before Create starts) and takes `EXECUTIONS_TIMEOUT`
 * where the workflow sets none: its moment is read where n8n keeps it (1.x and 2.x, main process
 * and worker alike), else counted from the node's start, `startedMs`, by the workflow's Timeout
 * Workflow. Of `monotonicMs`; Infinity without a timeout.
 */
export function beforeTimeoutMs(context: IExecuteFunctions, startedMs: number): number {
	const settingMs = Number(context.getWorkflowSettings?.()?.executionTimeout ?? -1) * 1000;
	const moment = (context as unknown as TimeoutMoment).additionalData?.executionTimeoutTimestamp;
	const timeoutAtMs = typeof moment === 'number' && Number.isFinite(moment) ? monotonicMs() + moment - Date.now() : settingMs > 0 ? startedMs + settingMs : Number.POSITIVE_INFINITY;
	const lengthMs = settingMs > 0 ? settingMs : timeoutAtMs - startedMs;
	return timeoutAtMs - Math.min(BEFORE_TIMEOUT_MS, lengthMs / 3);
}

/** Milliseconds waited, per reason ("the service answered 429 (too many requests)"). */
export type Waits = Map<string, number>;

/**
 * Why the waiting took its time, to follow "it waited 2 s": " because A", or ": 1.5 s because A,
 * 0.5 s because B" (longest first); reasons of less than 0.05 s are left out.
 */
export function whyWaited(waits: Waits): string {
	const shown = [...waits].filter(([, ms]) => ms >= 50).sort(([, a], [, b]) => b - a);
	if (shown.length <= 1) return shown.length === 0 ? '' : ` because ${shown[0][0]}`;
	return `: ${shown.map(([reason, ms]) => `${seconds(ms)} because ${reason}`).join(', ')}`;
}

export class WaitClock {
	/** Every wait, for the execution hint. */
	readonly total: Waits = new Map();

	/** Waits since the service last took some of the transactions, for the message of those given up. */
	private readonly unserved: Waits = new Map();

	/** Milliseconds waited since the service last took some of the transactions. */
	private unservedMs = 0;

	private countedUntilMs = monotonicMs();

	constructor(
		private readonly maxWaitMs: number,
		/** When waiting ends whatever Max Wait Seconds says (`beforeTimeoutMs`). */
		readonly latestMs = Number.POSITIVE_INFINITY,
	) {}

	/** When Max Wait Seconds runs out if they wait from the last count on, unless the service takes some of the transactions first; at `latestMs` at the latest. */
	get deadlineMs(): number {
		return Math.min(this.latestMs, this.countedUntilMs + this.maxWaitMs - this.unservedMs);
	}

	/** Counts the time since the last count as waited because of `reason`, if the transactions were `waiting`. */
	count(now: number, reason: string, waiting: boolean): void {
		if (waiting && now > this.countedUntilMs) this.add(reason, now - this.countedUntilMs);
		this.countedUntilMs = now;
	}

	/** Counts `ms` waited before the clock started, because of `reason`. */
	waited(ms: number, reason: string): void {
		if (ms > 0) this.add(reason, ms);
	}

	/** The service took some of the transactions: Max Wait Seconds starts again. */
	served(): void {
		this.countedUntilMs = monotonicMs();
		this.unserved.clear();
		this.unservedMs = 0;
	}

	private add(reason: string, ms: number): void {
		this.total.set(reason, (this.total.get(reason) ?? 0) + ms);
		this.unserved.set(reason, (this.unserved.get(reason) ?? 0) + ms);
		this.unservedMs += ms;
	}

	/** What the transactions waited for since the service last took some, to follow "it waited 120 s". */
	whyUnserved(): string {
		return whyWaited(this.unserved);
	}
}
