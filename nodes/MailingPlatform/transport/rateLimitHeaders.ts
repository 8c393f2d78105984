/**
 * What a service may say of an account's rate limit in its answers' headers. This service's spec
 * names none, so nothing depends on them: where they come, the account's gate uses them. Read,
 * defensively, in the forms in use:
 * - the IETF draft's `RateLimit-Policy` (`10;w=1`, or `"default";q=10;w=1`) and `RateLimit`
 *   (`limit=10, remaining=0, reset=3`, or `"default";r=0;t=3`);
 * - its earlier `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset` (seconds);
 * - the older `X-RateLimit-Remaining` / `X-RateLimit-Reset` (seconds, or a Unix time in seconds).
 */

export interface ServiceLimits {
	/** The account's rate the service declares, in requests per second (the strictest of its policies). */
	perSecond?: number;
	/** How long until the account may send again, where the service says no request is left. */
	spentForMs?: number;
}

type Headers = Readonly<Record<string, string | undefined>> | undefined;

/** A reset this large is a Unix time, not a number of seconds. */
const UNIX_TIME_SECONDS = 1_000_000_000;

/** A non-negative number, or undefined: quotes and spaces around it are allowed. */
function numberOf(text: string | undefined): number | undefined {
	const trimmed = text?.trim().replace(/^"(.*)"$/, '$1');
	if (trimmed === undefined || !/^\d+(\.\d+)?$/.test(trimmed)) return undefined;
	return Number(trimmed);
}

/** The members of a list field, each as its first token and its `key=value` parameters. */
function membersOf(field: string): Array<{ head: string; params: Map<string, string> }> {
	return field.split(',').map((member) => {
		const [head, ...rest] = member.split(';');
		const params = new Map<string, string>();
		for (const param of rest) {
			const [key, value] = param.split('=');
			if (value !== undefined) params.set(key.trim().toLowerCase(), value);
		}
		return { head: head.trim(), params };
	});
}

/** The strictest requests per second of `10;w=1, 50;w=60` or `"burst";q=10;w=1`. */
function declaredRate(field: string | undefined): number | undefined {
	let strictest: number | undefined;
	for (const { head, params } of field === undefined ? [] : membersOf(field)) {
		const quota = numberOf(params.get('q')) ?? numberOf(head);
		const window = numberOf(params.get('w'));
		if (quota === undefined || window === undefined || window <= 0) continue;
		strictest = Math.min(strictest ?? Number.POSITIVE_INFINITY, quota / window);
	}
	return strictest;
}

/** Seconds until the account may send again; undefined while requests are left or when unknown. */
function spentFor(left: number | undefined, resetSeconds: number | undefined, nowMs: number): number | undefined {
	if (left === undefined || left > 0 || resetSeconds === undefined) return undefined;
	return resetSeconds >= UNIX_TIME_SECONDS ? Math.max(0, resetSeconds - nowMs / 1000) : resetSeconds;
}

/** Requests left and seconds until they are renewed, as one field or pair of fields says. */
type Remaining = [left: number | undefined, resetSeconds: number | undefined];

/** What `RateLimit` says: `limit=10, remaining=0, reset=3`, or per policy, `"default";r=0;t=3`. */
function remainingOf(field: string | undefined): Remaining[] {
	if (field === undefined) return [];
	const members = membersOf(field);
	const dictionary = new Map<string, string>();
	for (const { head } of members) {
		const [key, value] = head.split('=');
		if (value !== undefined) dictionary.set(key.trim().toLowerCase(), value);
	}
	if (dictionary.has('remaining')) return [[numberOf(dictionary.get('remaining')), numberOf(dictionary.get('reset'))]];
	return members.map(({ params }) => [numberOf(params.get('r')), numberOf(params.get('t'))]);
}

/** What the headers of one answer say of the account's limit (Node lower-cases their names). */
export function readRateLimits(headers: Headers, nowMs = Date.now()): ServiceLimits {
	const header = (name: string) => {
		const value: unknown = headers?.[name];
		return value === undefined || value === null ? undefined : String(value);
	};
	const limits: ServiceLimits = {};
	const perSecond = declaredRate(header('ratelimit-policy')) ?? declaredRate(header('ratelimit-limit'));
	if (perSecond !== undefined && perSecond > 0) limits.perSecond = perSecond;
	const remaining: Remaining[] = [
		...remainingOf(header('ratelimit')),
		[numberOf(header('ratelimit-remaining')), numberOf(header('ratelimit-reset'))],
		[numberOf(header('x-ratelimit-remaining')), numberOf(header('x-ratelimit-reset'))],
	];
	for (const [left, resetSeconds] of remaining) {
		const seconds = spentFor(left, resetSeconds, nowMs);
		if (seconds !== undefined && seconds > 0) limits.spentForMs = Math.max(limits.spentForMs ?? 0, seconds * 1000);
	}
	return limits;
}
