/**
 * How long one execution's transactions waited for their account's requests and why, and when
 * Max Wait Seconds runs out. It counts only time in which the service took none of them, so an
 * execution whose own requests go out one after the other is never cut off, however long they take.
 */
import { seconds } from '../../helpers/numbers';
import { monotonicMs } from '../../transport/accountGate';

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

	private servedAtMs = monotonicMs();

	private countedUntilMs = this.servedAtMs;

	constructor(private readonly maxWaitMs: number) {}

	/** When Max Wait Seconds runs out, unless the service takes some of the transactions first. */
	get deadlineMs(): number {
		return this.servedAtMs + this.maxWaitMs;
	}

	/** Counts the time since the last count as waited because of `reason`, if the transactions were `waiting`. */
	count(now: number, reason: string, waiting: boolean): void {
		if (waiting && now > this.countedUntilMs) this.add(reason, now - this.countedUntilMs);
		this.countedUntilMs = now;
	}

	/** A request of them that left at `departedAtMs` was refused (`reason`): waited too, since the service took none. */
	refused(reason: string, departedAtMs: number): void {
		const now = monotonicMs();
		this.add(reason, now - departedAtMs);
		this.countedUntilMs = now;
	}

	/** The service took some of the transactions: Max Wait Seconds starts again. */
	served(): void {
		this.servedAtMs = this.countedUntilMs = monotonicMs();
		this.unserved.clear();
	}

	private add(reason: string, ms: number): void {
		this.total.set(reason, (this.total.get(reason) ?? 0) + ms);
		this.unserved.set(reason, (this.unserved.get(reason) ?? 0) + ms);
	}

	/** What the transactions waited for since the service last took some, to follow "it waited 120 s". */
	whyUnserved(): string {
		return whyWaited(this.unserved);
	}
}
