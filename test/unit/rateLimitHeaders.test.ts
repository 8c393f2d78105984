import { readRateLimits } from '../../nodes/MailingPlatform/transport/rateLimitHeaders';

/** The rate limit headers services send, in the forms in use; Node lower-cases their names. */
describe('reading a service’s rate limit headers', () => {
	const nowMs = Date.UTC(2026, 0, 1);

	it.each([
		['the IETF draft’s policy', { 'ratelimit-policy': '10;w=1' }, { perSecond: 10 }],
		['its later form, the strictest of two policies', { 'ratelimit-policy': '"burst";q=10;w=1, "day";q=600;w=3600' }, { perSecond: 1 / 6 }],
		['a policy carried by RateLimit-Limit', { 'ratelimit-limit': '100, 100;w=60' }, { perSecond: 100 / 60 }],
		['a limit without a window, which says no rate', { 'ratelimit-limit': '100' }, {}],
		['RateLimit with requests left', { ratelimit: 'limit=10, remaining=3, reset=1' }, {}],
		['RateLimit with none left', { ratelimit: 'limit=10, remaining=0, reset=3' }, { spentForMs: 3000 }],
		['its later form, one policy spent', { ratelimit: '"burst";r=4;t=1, "day";r=0;t=20' }, { spentForMs: 20_000 }],
		['the earlier separate fields', { 'ratelimit-remaining': '0', 'ratelimit-reset': '2' }, { spentForMs: 2000 }],
		['the older X- fields with a Unix time', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(nowMs / 1000 + 5) }, { spentForMs: 5000 }],
		['a reset already past', { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(nowMs / 1000 - 5) }, {}],
	])('%s', (_case, headers: Record<string, string>, limits) => {
		expect(readRateLimits(headers, nowMs)).toEqual(limits);
	});

	it.each([
		['no headers at all', undefined],
		['unreadable values', { 'ratelimit-policy': 'ten;w=one', ratelimit: 'remaining=-1, reset=soon', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': 'later' }],
		['a zero window', { 'ratelimit-policy': '10;w=0' }],
		['a spent limit without a reset', { 'ratelimit-remaining': '0' }],
	])('reads nothing from %s', (_case, headers) => {
		expect(readRateLimits(headers, nowMs)).toEqual({});
	});
});
