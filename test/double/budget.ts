/**
 * The account's request budget, as a rate-limited service keeps it: a token bucket that holds
 * `burst` requests and refills at `rate` per second. A request that finds it empty is refused
 * with 429 (or the status set) and does nothing. The double has none unless a test sets one (`ServiceDouble.budget`).
 */
import { performance } from 'node:perf_hooks';

import type { DoubleResponse } from './http';
import { xmlError } from './http';

export interface BudgetSettings {
	/** Requests per second the bucket refills. */
	rate: number;
	/** Requests the bucket holds: how many may arrive at once after a quiet moment. */
	burst: number;
	/** The `Retry-After` of a refusal ('1' unless given; undefined sends none; `RETRY_AFTER_HTTP_DATE`: a date a second on). */
	retryAfter?: string | undefined;
	/** The refusal's status: 429 unless given, or 503 as some gateways answer. */
	status?: 429 | 503;
}

/** A `Retry-After` given as an HTTP date one second after the refusal, as some services send it. */
export const RETRY_AFTER_HTTP_DATE = 'http-date';

export class RequestBudget {
	/** Requests let through, and refused with 429. */
	accepted = 0;
	refused = 0;

	private tokens: number;
	private lastRefillMs: number;
	readonly retryAfter: string | undefined;

	/** `now` in milliseconds is injectable so that tests need not wait. */
	constructor(
		readonly settings: BudgetSettings,
		private readonly now: () => number = () => performance.now(),
	) {
		if (!(settings.rate > 0) || !(settings.burst >= 1)) throw new Error(`A request budget needs rate > 0 and burst >= 1, not ${JSON.stringify(settings)}`);
		this.tokens = settings.burst;
		this.lastRefillMs = now();
		this.retryAfter = 'retryAfter' in settings ? settings.retryAfter : '1';
	}

	/** Takes one request's token: undefined when there was one, else the 429 to answer. */
	take(): DoubleResponse | undefined {
		const now = this.now();
		this.tokens = Math.min(this.settings.burst, this.tokens + ((now - this.lastRefillMs) / 1000) * this.settings.rate);
		this.lastRefillMs = now;
		if (this.tokens >= 1) {
			this.tokens -= 1;
			this.accepted++;
			return undefined;
		}
		this.refused++;
		const refusal = xmlError(this.settings.status ?? 429, `Too many requests: this account may send ${this.settings.rate} per second.`);
		const retryAfter = this.retryAfter === RETRY_AFTER_HTTP_DATE ? new Date(Date.now() + 1000).toUTCString() : this.retryAfter;
		if (retryAfter !== undefined) refusal.headers = { ...refusal.headers, 'Retry-After': retryAfter };
		return refusal;
	}
}
