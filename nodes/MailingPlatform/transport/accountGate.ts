/**
 * Each account's request budget in this n8n process. All executions of the process share the
 * package's modules, so every request of an account (the same Base URL and API key, whichever
 * credential or workflow holds them) passes one gate: it paces them to the credential's Max
 * Requests per Second, and when the service asks to slow down (429, 503) it pauses them all once,
 * instead of every execution retrying on its own.
 */
import { createHash } from 'node:crypto';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

/** Milliseconds of a clock no test or user changes: pauses and pacing must not follow `Date.now`. */
export const monotonicMs = () => performance.now();

export class AccountGate {
	/** Requests waiting for their turn or under way, and senders working for the account. */
	users = 0;

	private nextStartMs = 0;

	private pausedUntilMs = 0;

	private intervalMs = 0;

	private pauseReason = '';

	/** Paces requests to `perSecond` from now on (the credential's setting; empty or 0: not paced). */
	pace(perSecond: number): void {
		this.intervalMs = perSecond > 0 ? 1000 / perSecond : 0;
	}

	/** How long a request must wait before it may start. */
	waitMs(): number {
		return Math.max(0, this.pausedUntilMs - monotonicMs(), this.nextStartMs - monotonicMs());
	}

	/** Waits until a request may start, and takes that start. */
	async turn(): Promise<void> {
		for (let wait = this.waitMs(); wait > 0; wait = this.waitMs()) await sleep(wait);
		this.nextStartMs = monotonicMs() + this.intervalMs;
	}

	/** No request of the account starts for `ms`, because of `reason`. */
	pause(ms: number, reason: string): void {
		this.pausedUntilMs = Math.max(this.pausedUntilMs, monotonicMs() + ms);
		this.pauseReason = reason;
	}

	/** Why a request must wait now, for the execution hint and for messages. */
	whyWaiting(): string {
		if (this.pausedUntilMs > monotonicMs()) return this.pauseReason;
		return `the credential's Max Requests per Second (${Math.round(10_000 / this.intervalMs) / 10})`;
	}

	/** Whether forgetting the gate changes nothing: nobody uses it and no pause or pacing still holds. */
	isIdle(): boolean {
		return this.users === 0 && this.waitMs() === 0;
	}
}

const gates = new Map<string, AccountGate>();

/** The account a credential names, as a digest: the map holds no API key in clear. */
export function accountOf(data: ICredentialDataDecryptedObject | undefined): string {
	const baseUrl = String(data?.baseUrl ?? '').trim().replace(/\/+$/, '');
	return createHash('sha256').update(`${baseUrl}\n${String(data?.apiKey ?? '')}`).digest('hex');
}

/** The account's gate, paced as `data` says; gates nobody needs any more are forgotten on the way. */
export function gateOf(data: ICredentialDataDecryptedObject | undefined): AccountGate {
	for (const [account, gate] of gates) if (gate.isIdle()) gates.delete(account);
	const account = accountOf(data);
	let gate = gates.get(account);
	if (gate === undefined) gates.set(account, (gate = new AccountGate()));
	gate.pace(Number(data?.maxRequestsPerSecond ?? 0) || 0);
	return gate;
}
