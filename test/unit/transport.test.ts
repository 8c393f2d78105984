import { buildQueryString, buildUrl, readPageCount } from '../../nodes/MailingPlatform/transport';
import { errorAnswerMessage, oneLine } from '../../nodes/MailingPlatform/transport/serviceText';
import { parseRetryAfter, retryDelayMs } from '../../nodes/MailingPlatform/transport/retry';
import { isAllowedBaseUrl, isTimeZone } from '../../credentials/MailingPlatformApi.credentials';

describe('buildUrl', () => {
	it('joins the base URL with or without a trailing slash', () => {
		expect(buildUrl('https://api.example.com/1.0', ['reports', 'blocks'])).toBe('https://api.example.com/1.0/reports/blocks');
		expect(buildUrl('https://api.example.com/1.0/', ['reports', 'blocks'])).toBe('https://api.example.com/1.0/reports/blocks');
	});

	it('encodes every segment as exactly one segment', () => {
		expect(buildUrl('https://x/1.0', ['contacts', 'fields', 'custom', 'a/b c?', 'd#e%'])).toBe(
			'https://x/1.0/contacts/fields/custom/a%2Fb%20c%3F/d%23e%25',
		);
		expect(buildUrl('https://x/1.0', ['mailings', 12, 'checks'])).toBe('https://x/1.0/mailings/12/checks');
	});

	it('repeats keys for multi-valued parameters and leaves out undefined ones', () => {
		expect(
			buildQueryString({ emails: ['a@x.de', 'b+c@x.de'], reasons: ['blacklist'], page_size: 1000, asc: false, to_date: undefined }),
		).toBe('emails=a%40x.de&emails=b%2Bc%40x.de&reasons=blacklist&page_size=1000&asc=false');
		expect(buildUrl('https://x/1.0', ['r'], { ids: [1, 2] })).toBe('https://x/1.0/r?ids=1&ids=2');
	});
});

describe('readPageCount', () => {
	it('reads the lower-cased X-Pages header', () => {
		expect(readPageCount({ 'x-pages': '3', 'x-items': '2320', link: '<…>; rel="next"' })).toBe(3);
	});

	it('ignores a missing or unreadable count', () => {
		expect(readPageCount({ 'x-items': '2320' })).toBeUndefined();
		expect(readPageCount({ 'x-pages': 'many' })).toBeUndefined();
		expect(readPageCount({ 'x-pages': '' })).toBeUndefined();
	});
});

describe('platform time zone', () => {
	it('accepts IANA zones only', () => {
		expect(['Europe/Berlin', 'America/New_York', 'UTC'].every(isTimeZone)).toBe(true);
		expect(['', 'Europe/Berlln', 'CEST+1', 'Berlin'].some(isTimeZone)).toBe(false);
	});
});

describe('retry timing', () => {
	it('reads Retry-After as seconds, whole or not, or as an HTTP date', () => {
		expect(parseRetryAfter('2')).toBe(2000);
		expect(parseRetryAfter(' 1.5 ')).toBe(1500);
		expect(parseRetryAfter('-1')).toBeUndefined();
		expect(parseRetryAfter('1e3')).toBeUndefined();
		expect(parseRetryAfter('Sat, 21 Nov 2026 10:00:05 GMT', Date.parse('Sat, 21 Nov 2026 10:00:00 GMT'))).toBe(5000);
		expect(parseRetryAfter('soon')).toBeUndefined();
		expect(parseRetryAfter(undefined)).toBeUndefined();
	});

	it('honours Retry-After from a quarter second up to 30 s, and backs off exponentially from half a second without it', () => {
		// Never at once: the first backoff's floor, whatever the service says.
		expect(retryDelayMs(0, '0')).toBe(250);
		expect(retryDelayMs(0, new Date(Date.now() - 5000).toUTCString())).toBe(250);
		expect(retryDelayMs(0, '1.5')).toBe(1500);
		expect(retryDelayMs(0, '3600')).toBe(30_000);
		// An HTTP date 10 s ahead (whole seconds): far beyond the first backoff's half second.
		const inTenSeconds = retryDelayMs(0, new Date(Date.now() + 10_000).toUTCString());
		expect(inTenSeconds).toBeGreaterThan(9000);
		expect(inTenSeconds).toBeLessThanOrEqual(10_000);
		for (const [retry, ceiling] of [[0, 500], [1, 1000], [2, 2000], [3, 4000], [9, 30_000]]) {
			const delay = retryDelayMs(retry, undefined);
			expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
			expect(delay).toBeLessThanOrEqual(ceiling);
		}
	});
});

describe('errorAnswerMessage', () => {
	const message = (body: string) => errorAnswerMessage(body, 404, 'Not Found');

	it('takes the service’s words from its XML error, plain text or a JSON message', () => {
		expect(message('<error><message>Mailing with id 5 not found.</message></error>')).toBe('Mailing with id 5 not found.');
		expect(message('Mailing with id 3108 not found.\n')).toBe('Mailing with id 3108 not found.');
		expect(message('  Mailing  with id\r\n\t3108\u0000 not found. ')).toBe('Mailing with id 3108 not found.');
		expect(message('{"message": "Mailing with id 7 not found."}')).toBe('Mailing with id 7 not found.');
		expect(message('{"error": {"message": "No such mailing"}}')).toBe('No such mailing');
		expect(message('{"error": "No such mailing"}')).toBe('No such mailing');
		expect(message('{"code": 17}')).toBe('{"code": 17}');
		expect(message('<fault><reason>Quota &amp; limits exceeded</reason></fault>')).toBe('Quota & limits exceeded');
	});

	it('names the status when the answer has no words', () => {
		expect(message('')).toBe('The service answered 404 Not Found');
		expect(message('<error><message/></error>')).toBe('The service answered 404 Not Found');
		expect(errorAnswerMessage('  ', 500)).toBe('The service answered 500');
	});

	it('shows only the title of an HTML page, after the status, and only if it adds to it', () => {
		const page = (head: string, body: string) => `<!DOCTYPE html>\n<html><head>${head}<style>h1 { color: red }</style></head><body>${body}<script>track()</script></body></html>`;
		expect(errorAnswerMessage(page('<title>502 Bad Gateway</title>', '<h1>502 Bad Gateway</h1><hr>nginx'), 502, 'Bad Gateway')).toBe('The service answered 502 Bad Gateway');
		expect(errorAnswerMessage(page('<title>api.example.com | 522: Connection timed out</title>', '<p>Long text</p>'), 522)).toBe(
			'The service answered 522: api.example.com | 522: Connection timed out',
		);
		expect(errorAnswerMessage(page('', '<h1>Service <em>paused</em></h1><p>Details</p>'), 503, 'Service Unavailable')).toBe(
			'The service answered 503 Service Unavailable: Service paused',
		);
		expect(errorAnswerMessage('<html><body><p>Oops</p></body></html>', 500, 'Internal Server Error')).toBe('The service answered 500 Internal Server Error');
	});

	it('bounds a long answer to 300 characters, marking the cut', () => {
		const long = message(`Mailing not found. ${'Lorem ipsum dolor sit amet. '.repeat(40)}`);
		expect(Array.from(long).length).toBeLessThanOrEqual(300);
		expect(long.startsWith('Mailing not found. Lorem ipsum')).toBe(true);
		expect(long.endsWith('…')).toBe(true);
		expect(oneLine('😀'.repeat(400))).toBe(`${'😀'.repeat(299)}…`);
	});

	it('cuts out an Authorization header the answer echoes', () => {
		const echoed = message('Bad request. Headers: Accept: */*\nAuthorization: Basic c2FuZGJveC1hcGkta2V5\nHost: x');
		expect(echoed).toBe('Bad request. Headers: Accept: */* Authorization: (removed) Host: x');
	});
});

describe('credential base URL', () => {
	it.each([
		['https://api.example.com/1.0', true],
		['http://127.0.0.1:8080/1.0', true],
		['http://127.3.2.1/1.0', true],
		['http://localhost:3000/1.0', true],
		['http://[::1]:3000/1.0', true],
		['http://api.example.com/1.0', false],
		['http://127.0.0.1.example.com/1.0', false],
		['ftp://api.example.com/1.0', false],
		['api.example.com/1.0', false],
	])('%s allowed: %s', (baseUrl, allowed) => {
		expect(isAllowedBaseUrl(baseUrl)).toBe(allowed);
	});
});
