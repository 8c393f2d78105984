/**
 * When a failed request may be sent again. Idempotent requests (reads) are retried on the
 * statuses below and on any network error; the others only when the service cannot have
 * acted on them: it said so (429, 503) or the connection was never made.
 */
export const RETRY = {
	attempts: 5,
	baseDelayMs: 500,
	maxDelayMs: 30_000,
} as const;

/** Statuses after which the service has not acted on the request, and a resend may succeed. */
const NOT_TAKEN_STATUSES = new Set([429, 503]);
/** Statuses after which a read is worth repeating; a write might have taken effect. */
const TRANSIENT_STATUSES = new Set([500, 502, 504, ...NOT_TAKEN_STATUSES]);
/** Network errors raised before a single byte reached the service. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/** Whether the service asks every request of the account to wait (429, 503). */
export function asksToSlowDown(status: number): boolean {
	return NOT_TAKEN_STATUSES.has(status);
}

/**
 * Whether a refusal speaks of the account's rate, so that it may teach the account's pace: a 429,
 * or a 503 that says when to come back. A 503 without `Retry-After` is an outage: it pauses the
 * account and teaches nothing.
 */
export function refusesForRate(status: number, retryAfter: string | undefined): boolean {
	return status === 429 || (status === 503 && retryAfter !== undefined && retryAfter.trim() !== '');
}

export function isRetriedStatus(status: number, repeatable: boolean): boolean {
	return repeatable ? TRANSIENT_STATUSES.has(status) : NOT_TAKEN_STATUSES.has(status);
}

/** Whether the service said it did not act on the request: 413 (too large), 429, 503. */
export function saysNotTaken(status: number): boolean {
	return status === 413 || NOT_TAKEN_STATUSES.has(status);
}

/**
 * Whether a status leaves the outcome of a request that is not repeatable open: every answer but
 * a 4xx refusal and a 429 or 503, e.g. a 3xx, a 500, or a gateway's 502, 504, 520 or 524 (which
 * it may give after the service acted on the request).
 */
export function leavesOutcomeOpen(status: number): boolean {
	return !(status >= 400 && status < 500) && !NOT_TAKEN_STATUSES.has(status);
}

/** Whether the request never left this machine, so even a transaction may be sent again. */
export function neverSent(code: string): boolean {
	return NOT_SENT_CODES.has(code);
}

/**
 * Seconds (whole or not) or an HTTP date, as `Retry-After` may carry; undefined when absent or
 * unreadable. A date names its day and month: a number of another form ("-1", "1e3") is no date.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	const text = value?.trim() ?? '';
	if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
	const date = /[a-z]/i.test(text) ? Date.parse(text) : Number.NaN;
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Exponential backoff with jitter; the service's own `Retry-After` wins, capped, but never below
 * the first backoff's floor: an account answering "0" or a past date is not asked again at once.
 */
export function retryDelayMs(retryNumber: number, retryAfter: string | undefined): number {
	const requested = parseRetryAfter(retryAfter);
	if (requested !== undefined) return Math.min(Math.max(requested, RETRY.baseDelayMs / 2), RETRY.maxDelayMs);
	const ceiling = Math.min(RETRY.baseDelayMs * 2 ** retryNumber, RETRY.maxDelayMs);
	return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** "Attempts made: 3." — appended to every error of a request, so no message claims retries that did not happen. */
export function attemptsMade(attempts: number): string {
	return `Attempts made: ${attempts}.`;
}
