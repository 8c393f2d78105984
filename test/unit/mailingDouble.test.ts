import { DateTime } from 'luxon';

import { MAILINGS } from '../double/routes/mailings';
import { useServiceDouble } from '../harness/double';

/** The double itself must refuse what the spec says the service refuses, or node tests prove nothing. */
describe('mailing › service double', () => {
	const { double } = useServiceDouble();
	const call = async (method: string, path: string, query: Record<string, string> = {}) => {
		const response = await fetch(`${double().baseUrl}/${path}?${new URLSearchParams(query)}`, {
			method,
			headers: { Authorization: `Basic ${Buffer.from(double().apiKey).toString('base64')}` },
		});
		return { status: response.status, body: await response.text() };
	};
	const tomorrow = DateTime.now().setZone('Europe/Berlin').plus({ days: 1 });
	const start = { date: tomorrow.toFormat('yyyy-MM-dd'), hours: '12', minutes: '00' };
	const schedule = (query: Record<string, string>, id: number = MAILINGS.regular) =>
		call('POST', `mailings/${id}/schedule`, { ...start, ...query });

	it('runs a check for the configured time', async () => {
		double().mailings.checkDurationMs = 0;
		expect((await call('POST', `mailings/${MAILINGS.regular}/checks/bounce`)).status).toBe(200);
		expect((await call('POST', `mailings/${MAILINGS.regular}/checks/bounce`)).status).toBe(200);
	});

	it('refuses past and malformed dates with 400', async () => {
		const yesterday = tomorrow.minus({ days: 2 }).toFormat('yyyy-MM-dd');
		expect(await schedule({ date: yesterday })).toMatchObject({ status: 400, body: expect.stringContaining('in the past') });
		expect(await schedule({ hours: '7' })).toMatchObject({ status: 400, body: expect.stringContaining('not a date') });
		expect(await schedule({ date: '2030-02-30' })).toMatchObject({ status: 400, body: expect.stringContaining('not a date') });
	});

	it.each<[string, Record<string, string>]>([
		['no end', { dispatchOption: 'uniform' }],
		['two ends', { dispatchOption: 'hour', dispatchEndInHours: '5', dispatchEndExactDatetime: `${start.date} 20:00` }],
		['uniform over 96 hours', { dispatchOption: 'uniform', dispatchEndInHours: '97' }],
		['hour over 24 hours', { dispatchOption: 'hour', dispatchEndInHours: '25' }],
		['days with uniform', { dispatchOption: 'uniform', dispatchEndInDays: '2' }],
		['an interval with hour', { dispatchOption: 'hour', dispatchEndInHours: '5', dispatchUniformInterval: '30m' }],
		['waves with uniform', { dispatchOption: 'uniform', dispatchEndInHours: '5', dispatchWavesGroup: '2' }],
		['an end before the start', { dispatchOption: 'uniform', dispatchEndExactDatetime: `${start.date} 11:00` }],
		['allowed hour 24', { dispatchOption: 'uniform', dispatchEndInHours: '5', allowedHours: '8,24' }],
		['an unknown parameter', { hour: '12' }],
	])('refuses %s with 400 and records nothing', async (_case, query) => {
		expect((await schedule(query)).status).toBe(400);
		expect(double().mailings.mailings.get(MAILINGS.regular)?.schedule).toBeUndefined();
	});

	it('answers sealed, non-REGULAR and unknown mailings as the spec says', async () => {
		expect(await schedule({}, MAILINGS.sealed)).toMatchObject({ status: 405 });
		expect(await schedule({}, MAILINGS.trigger)).toMatchObject({ status: 400 });
		expect(await schedule({}, 4242)).toMatchObject({ status: 404, body: expect.stringContaining('Mailing with id 4242 not found.') });
	});

	it('records the schedule as the instant its wall-clock time denotes in the account timezone', async () => {
		double().mailings.timeZone = 'Asia/Tokyo';
		expect((await schedule({ activate: 'false' })).status).toBe(200);
		const recorded = double().mailings.mailings.get(MAILINGS.regular)?.schedule;
		expect(recorded?.at).toBe(DateTime.fromISO(`${start.date}T12:00`, { zone: 'Asia/Tokyo' }).toUTC().toISO());
		expect(recorded?.activate).toBe(false);
	});
});
