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

/** Max Requests per Second as a credential holds it: empty, 0 or unreadable mean not paced. */
const paceOf = (data: ICredentialDataDecryptedObject | undefined) => Math.max(0, Number(data?.maxRequestsPerSecond ?? 0) || 0);

export class AccountGate {
	/** The Max Requests per Second of each user (a request, or a sender's waiting execution); 0 when not set. */
	private readonly paces: number[] = [];

	private nextStartMs = 0;

	/** The pace that set `nextStartMs`. */
	private startPace = 0;

	private pausedUntilMs = 0;

	private pauseReason = '';

	/**
	 * Registers a user with its credential's setting until the returned function is called. While
	 * users of credentials with different settings wait or run, the smallest set one paces them all.
	 */
	enter(data: ICredentialDataDecryptedObject | undefined): () => void {
		const pace = paceOf(data);
		this.paces.push(pace);
		return () => void this.paces.splice(this.paces.indexOf(pace), 1);
	}

	/** The slowest set pace of the users, in requests per second; 0 when none is set. */
	private pace(): number {
		let slowest = 0;
		for (const pace of this.paces) if (pace > 0 && (slowest === 0 || pace < slowest)) slowest = pace;
		return slowest;
	}

	/** How long a request must wait before it may start. */
	waitMs(): number {
		const now = monotonicMs();
		return Math.max(0, this.pausedUntilMs - now, this.nextStartMs - now);
	}

	/** Takes a start now: the next request may start one pacing interval later. Call only when `waitMs()` is 0. */
	takeStart(): void {
		this.startPace = this.pace();
		this.nextStartMs = this.startPace > 0 ? monotonicMs() + 1000 / this.startPace : 0;
	}

	/** Waits until a request may start, and takes that start. */
	async turn(): Promise<void> {
		for (let wait = this.waitMs(); wait > 0; wait = this.waitMs()) await sleep(wait);
		this.takeStart();
	}

	/** No request of the account starts for `ms`, because of `reason`. */
	pause(ms: number, reason: string): void {
		this.pausedUntilMs = Math.max(this.pausedUntilMs, monotonicMs() + ms);
		this.pauseReason = reason;
	}

	/** Why a request must wait now, for the execution hint and for messages; empty when it need not. */
	whyWaiting(): string {
		const now = monotonicMs();
		if (this.pausedUntilMs > now) return this.pauseReason;
		if (this.nextStartMs > now) return `the credential's Max Requests per Second (${Math.round(this.startPace * 10) / 10})`;
		return '';
	}
}

const gates = new Map<string, AccountGate>();

/** Each decrypted credential's account, worked out once: a node run reads its credential once (transport's `credentialOf`). */
const accounts = new WeakMap<ICredentialDataDecryptedObject, string>();

/** The account a credential names, as a digest: the map holds no API key in clear. */
export function accountOf(data: ICredentialDataDecryptedObject | undefined): string {
	let account = data === undefined ? undefined : accounts.get(data);
	if (account === undefined) {
		const baseUrl = String(data?.baseUrl ?? '').trim().replace(/\/+$/, '');
		account = createHash('sha256').update(`${baseUrl}\n${String(data?.apiKey ?? '')}`).digest('hex');
		if (data !== undefined) accounts.set(data, account);
	}
	return account;
}

/**
 * The account's gate, kept for the process's life (a few fields while idle), so that the
 * account's sender, which keeps what a 413 taught it as long, always meets the same gate.
 */
export function gateOf(data: ICredentialDataDecryptedObject | undefined): AccountGate {
	const account = accountOf(data);
	let gate = gates.get(account);
	if (gate === undefined) gates.set(account, (gate = new AccountGate()));
	return gate;
}
