import { DateTime } from 'luxon';

import { MAILINGS } from '../double/routes/mailings';
import { useServiceDouble } from '../harness/double';
import { future, schedule } from '../harness/schedule';
import { runNode } from '../harness/workflow';

describe('mailing › schedule in a workflow: time zones', () => {
	const { double, credentials } = useServiceDouble();

	it('converts a value with an offset to the workflow timezone (America/New_York)', async () => {
		const zone = 'America/New_York';
		double().mailings.timeZone = zone;
		const instant = DateTime.now().plus({ days: 20 }).set({ hour: 15, minute: 45, second: 0, millisecond: 0 }).toUTC();
		const inNewYork = instant.setZone(zone);

		const result = await runNode({
			credentials: credentials(),
			timezone: zone,
			parameters: schedule({ scheduledAt: '={{ $json.at }}', activate: false }),
			items: [{ at: instant.toISO() }],
		});

		expect(result.error).toBeUndefined();
		expect(result.main[0].scheduled).toEqual({
			date: inNewYork.toFormat('yyyy-MM-dd'),
			hours: inNewYork.hour,
			minutes: 45,
			timeZone: zone,
		});
		expect(result.main[0].activated).toBe(false);
		const stored = double().mailings.mailings.get(MAILINGS.regular);
		expect(stored?.schedule?.at).toBe(instant.toISO());
		expect(stored?.active).toBe(false);
	});

	it('sends 09:00 picked in New York as hours=15&minutes=00 of the same date to a platform in Berlin', async () => {
		// 09:00 in New York is 15:00 in Berlin except in the weeks where only one of them has moved to or from DST.
		let day = 10;
		while (DateTime.now().setZone('America/New_York').plus({ days: day }).set({ hour: 9, minute: 0 }).setZone('Europe/Berlin').hour !== 15) day++;
		const start = future(day, '09:00', 'America/New_York');

		const result = await runNode({
			credentials: credentials({ platformTimeZone: 'Europe/Berlin' }),
			timezone: 'America/New_York',
			parameters: schedule({ scheduledAt: start.picker }),
		});

		expect(result.error).toBeUndefined();
		const [request] = double().requestsTo('mailings/');
		expect(request.query).toEqual([
			['date', start.date],
			['hours', '15'],
			['minutes', '00'],
			['activate', 'true'],
		]);
		const instant = DateTime.fromISO(start.picker, { zone: 'America/New_York' });
		expect(double().mailings.mailings.get(MAILINGS.regular)?.schedule?.at).toBe(instant.toUTC().toISO());
		expect(result.main[0].scheduled).toEqual({ date: start.date, hours: 15, minutes: 0, timeZone: 'Europe/Berlin' });
	});

	it('refuses a Platform Time Zone that is no time zone before sending anything', async () => {
		const result = await runNode({
			credentials: credentials({ platformTimeZone: 'Europe/Berlln' }),
			parameters: schedule({ scheduledAt: future(3, '12:00').picker }),
		});

		expect(result.error?.message).toBe('Platform Time Zone "Europe/Berlln" in the credential is not a time zone');
		expect(double().requestsTo('mailings/')).toHaveLength(0);
	});

	it('reads a value without an offset as wall-clock time in the workflow timezone (Asia/Tokyo)', async () => {
		const start = future(5, '07:15', 'Asia/Tokyo');
		const result = await runNode({
			credentials: credentials(),
			timezone: 'Asia/Tokyo',
			parameters: schedule({ scheduledAt: start.picker }),
		});

		expect(result.main[0].scheduled).toEqual({ date: start.date, hours: 7, minutes: 15, timeZone: 'Asia/Tokyo' });
	});
});
