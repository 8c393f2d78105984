/**
 * Each account's request budget in this n8n process. All executions of the process share the
 * package's modules, so every request of an account (the same Base URL and API key, whichever
 * credential or workflow holds them) passes one gate. It paces them to the credential's Max
 * Requests per Second and to the pace the service's refusals taught (learnedPace.ts), and when the
 * service asks to slow down (429, 503) it pauses them all once, instead of every execution
 * retrying on its own.
 */
import { createHash } from 'node:crypto';

import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { LearnedPace } from './learnedPace';
import { readRateLimits } from './rateLimitHeaders';
import { asksToSlowDown, refusesForRate, RETRY } from './retry';

/** Milliseconds of a clock no test or user changes: pauses and pacing must not follow `Date.now`. */
export const monotonicMs = () => performance.now();

/** Max Requests per Second as a credential holds it: empty, 0 or unreadable mean not paced. */
const paceOf = (data: ICredentialDataDecryptedObject | undefined) => Math.max(0, Number(data?.maxRequestsPerSecond ?? 0) || 0);

/**
 * The largest body a request risks while the service may refuse it again (after a refusal, until
 * the account takes a request sent since): about 1% of a full 9 MB request.
 */
export const PROBE_BYTES = 100_000;

/** A start within this share of a pacing interval after the earliest allowed one was held back by the pace. */
const HELD_BACK_SLACK = 0.25;

export class AccountGate {
	/** The Max Requests per Second of each user (a request, or a sender's waiting execution); 0 when not set. */
	private readonly paces: number[] = [];

	private readonly learned = new LearnedPace();

	private nextStartMs = 0;

	private lastStartMs = Number.NEGATIVE_INFINITY;

	/** `nextStartMs` before the latest start, for `returnStart`. */
	private nextStartBeforeMs = 0;

	/** The pace that set `nextStartMs` (infinite: none), and whether the learned one set it. */
	private startPace = Number.POSITIVE_INFINITY;

	private startPaceLearned = false;

	/** Whether the pace delayed the latest start: only then does an accepted request raise the learned pace. */
	private startHeldBack = false;

	/** When the gate would first have let the latest start go (the end of its pause or pacing interval): any later, it had nothing to send. */
	private startAllowedAtMs = 0;

	private pausedUntilMs = 0;

	/** When the latest pause began. */
	private pausedAtMs = Number.NEGATIVE_INFINITY;

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
	private setPace(): number {
		let slowest = 0;
		for (const pace of this.paces) if (pace > 0 && (slowest === 0 || pace < slowest)) slowest = pace;
		return slowest;
	}

	/** How long a request must wait before it may start. */
	waitMs(): number {
		const now = monotonicMs();
		return Math.max(0, this.pausedUntilMs - now, this.nextStartMs - now);
	}

	/**
	 * Takes a start now: the next request may start one pacing interval later, at the smaller of
	 * the credential's setting and the learned pace. Call only when `waitMs()` is 0.
	 */
	takeStart(): number {
		const now = monotonicMs();
		this.takePace();
		const intervalMs = Number.isFinite(this.startPace) ? 1000 / this.startPace : 0;
		this.startHeldBack = intervalMs > 0 && now - this.nextStartMs < intervalMs * HELD_BACK_SLACK;
		this.startAllowedAtMs = Math.max(this.pausedUntilMs, this.nextStartMs);
		this.nextStartBeforeMs = this.nextStartMs;
		this.nextStartMs = intervalMs > 0 ? now + intervalMs : 0;
		this.lastStartMs = now;
		return now;
	}

	/**
	 * Gives back the start taken at `startMs` whose request never left (each of its transactions
	 * was found sent before, or went back to wait), unless a later start was taken since: the
	 * account saw no request, so the next may go when it could have before. Without it, a retried
	 * execution's orders sent before would spend its Max Wait Seconds at the pace, one per request.
	 */
	returnStart(startMs: number): void {
		if (this.lastStartMs === startMs) this.nextStartMs = this.nextStartBeforeMs;
	}

	/** Takes the smaller of the credential's setting and the learned pace as the pace of the starts. */
	private takePace(): void {
		const set = this.setPace() || Number.POSITIVE_INFINITY;
		const learned = this.learned.perSecond(monotonicMs()) ?? Number.POSITIVE_INFINITY;
		this.startPaceLearned = learned < set;
		this.startPace = Math.min(set, learned);
	}

	/**
	 * A pace learned or lowered while requests were under way counts from the latest start, so
	 * that the request after a pause's probe does not follow it at once into a likely refusal.
	 */
	private slowDownFromLastStart(): void {
		const previous = this.startPace;
		this.takePace();
		if (this.startPace < previous) this.nextStartMs = Math.max(this.nextStartMs, this.lastStartMs + 1000 / this.startPace);
	}

	/** Waits until a request may start, and takes that start. */
	async turn(): Promise<void> {
		for (let wait = this.waitMs(); wait > 0; wait = this.waitMs()) await sleep(wait);
		this.takeStart();
	}

	/**
	 * The service answered a request of the account that left at `sentAtMs` (`monotonicMs`): an
	 * acceptance or a refusal for the account's rate (retry.ts, `refusesForRate`) teaches the pace,
	 * and rate limit headers, where a service sends them, declare its rate or that no request is
	 * left until a reset.
	 */
	answered(sentAtMs: number, status: number, headers: Readonly<Record<string, string | undefined>> | undefined): void {
		const limits = readRateLimits(headers);
		if (limits.perSecond !== undefined) this.learned.declare(limits.perSecond);
		if (asksToSlowDown(status)) this.learned.refused(sentAtMs, monotonicMs(), refusesForRate(status, headers?.['retry-after']));
		else this.learned.accepted(sentAtMs, this.startHeldBack, this.startAllowedAtMs);
		this.slowDownFromLastStart();
		if (limits.spentForMs !== undefined) {
			this.pause(Math.min(limits.spentForMs, RETRY.maxDelayMs), 'the service said the account had no requests left (rate limit headers)');
		}
	}

	/**
	 * No request of the account starts for `ms`, because of `reason`. With a learned pace, the
	 * pause ends at a random point within one pacing interval after it (and after the next start
	 * the pace allows), so that processes refused together do not come back together.
	 */
	pause(ms: number, reason: string): void {
		const now = monotonicMs();
		const learned = this.learned.perSecond(now);
		const spreadMs = learned === undefined ? 0 : Math.max(0, this.nextStartMs - now - ms) + (Math.random() * 1000) / learned;
		this.pausedUntilMs = Math.max(this.pausedUntilMs, now + ms + spreadMs);
		this.pausedAtMs = now;
		this.pauseReason = reason;
	}

	/**
	 * Whether a request whose start was taken at `sinceMs` (of `monotonicMs`) and that has not
	 * left yet should wait again: since then the account was paused, or refused a request, and
	 * that still holds (a request chosen before a refusal may be larger than a probe, or go
	 * beside another). A start is taken only while neither holds: one of the same moment came after it.
	 */
	heldBackSince(sinceMs: number): boolean {
		const paused = this.pausedAtMs >= sinceMs && this.pausedUntilMs > monotonicMs();
		return paused || this.learned.awaitingAcceptanceSince(sinceMs);
	}

	/**
	 * The largest body a request should risk now: `PROBE_BYTES` after a refusal until the account
	 * takes a request sent since, so a bulk never uploads megabytes into a likely refusal; no limit otherwise.
	 */
	largestBodyToRisk(): number {
		return this.learned.awaitingAcceptance ? PROBE_BYTES : Number.POSITIVE_INFINITY;
	}

	/**
	 * How many requests may be under way at once now: one after a refusal until the account takes
	 * a request sent since, so that a pause's end sends a single probe, not every waiting request
	 * into a likely refusal; no limit otherwise.
	 */
	requestsToRisk(): number {
		return this.learned.awaitingAcceptance ? 1 : Number.POSITIVE_INFINITY;
	}

	/** Why a request must wait now, for the execution hint and for messages; empty when it need not. */
	whyWaiting(): string {
		const now = monotonicMs();
		if (this.pausedUntilMs > now) return this.pauseReason;
		if (this.nextStartMs <= now) return '';
		// Two figures: a pace of 0.03 must not read as 0.
		const pace = Number(this.startPace.toPrecision(2));
		return this.startPaceLearned
			? `the pace the service's refusals taught (${pace} ${pace === 1 ? 'request' : 'requests'} per second)`
			: `the credential's Max Requests per Second (${pace})`;
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
