import { DateTime } from 'luxon';
import type { INodeParameters } from 'n8n-workflow';

import { MAILINGS } from '../double/routes/mailings';
import { useServiceDouble } from '../harness/double';
import { runNode } from '../harness/workflow';

/** A wall-clock time `days` from now, as the date picker stores it (no offset). */
function future(days: number, time: string, zone = 'Europe/Berlin'): { picker: string; date: string } {
	const date = DateTime.now().setZone(zone).plus({ days }).toFormat('yyyy-MM-dd');
	return { picker: `${date}T${time}:00`, date };
}

describe('mailing › schedule in a workflow', () => {
	const { double, credentials } = useServiceDouble();
	const schedule = (parameters: INodeParameters): INodeParameters => ({
		resource: 'mailing',
		operation: 'schedule',
		mailingId: MAILINGS.regular,
		...parameters,
	});

	it('sends a uniform schedule with exactly the query parameters that were set', async () => {
		const start = future(10, '09:30');
		const result = await runNode({
			credentials: credentials(),
			parameters: schedule({
				scheduledAt: start.picker,
				dispatchOption: 'uniform',
				dispatchEnd: 'inHours',
				dispatchEndInHours: 48,
				dispatchUniformInterval: '30m',
				allowedHours: '8-20',
			}),
		});

		expect(result.error).toBeUndefined();
		const requests = double().requestsTo('mailings/');
		expect(requests).toHaveLength(1);
		expect(requests[0].method).toBe('POST');
		expect(requests[0].rawPath).toBe(`mailings/${MAILINGS.regular}/schedule`);
		expect(requests[0].bodyBytes).toBe(0);
		expect(requests[0].query).toEqual([
			['date', start.date],
			['hours', '09'],
			['minutes', '30'],
			['dispatchOption', 'uniform'],
			['dispatchEndInHours', '48'],
			['dispatchUniformInterval', '30m'],
			['allowedHours', '8-20'],
			['activate', 'true'],
		]);
		expect(result.main).toEqual([
			{
				mailingId: MAILINGS.regular,
				scheduled: { date: start.date, hours: 9, minutes: 30, timeZone: 'Europe/Berlin' },
				activated: true,
				dispatch: {
					dispatchOption: 'uniform',
					dispatchEndInHours: 48,
					dispatchUniformInterval: '30m',
					allowedHours: '8-20',
				},
				sent: {
					date: start.date,
					hours: '09',
					minutes: '30',
					dispatchOption: 'uniform',
					dispatchEndInHours: 48,
					dispatchUniformInterval: '30m',
					allowedHours: '8-20',
					activate: true,
				},
			},
		]);
		const stored = double().mailings.mailings.get(MAILINGS.regular);
		expect(stored?.active).toBe(true);
		expect(stored?.schedule?.at).toBe(
			DateTime.fromISO(start.picker, { zone: 'Europe/Berlin' }).toUTC().toISO(),
		);
	});

	it('sends no distribution parameters without a dispatch option', async () => {
		const start = future(3, '18:05');
		const result = await runNode({ credentials: credentials(), parameters: schedule({ scheduledAt: start.picker }) });

		expect(result.main[0]).toEqual({
			mailingId: MAILINGS.regular,
			scheduled: { date: start.date, hours: 18, minutes: 5, timeZone: 'Europe/Berlin' },
			activated: true,
			sent: { date: start.date, hours: '18', minutes: '05', activate: true },
		});
		expect(double().requestsTo('mailings/')[0].query).toEqual([
			['date', start.date],
			['hours', '18'],
			['minutes', '05'],
			['activate', 'true'],
		]);
	});

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

	it('sends an hour distribution with exact end, response settings and normalised allowed hours', async () => {
		const start = future(4, '06:00');
		const end = future(4, '22:30');
		const result = await runNode({
			credentials: credentials(),
			parameters: schedule({
				scheduledAt: start.picker,
				dispatchOption: 'hour',
				dispatchEnd: 'exactDatetime',
				dispatchEndExactDatetime: end.picker,
				clicksAsResponseReference: true,
				dispatchWavesGroup: 2,
				allowedHours: ' 17-21, 0,3 ,5, 4,18',
			}),
		});

		expect(result.error).toBeUndefined();
		expect(double().requestsTo('mailings/')[0].query).toEqual([
			['date', start.date],
			['hours', '06'],
			['minutes', '00'],
			['dispatchOption', 'hour'],
			['dispatchEndExactDatetime', `${end.date} 22:30`],
			['clicksAsResponseReference', 'true'],
			['dispatchWavesGroup', '2'],
			['allowedHours', '0,3-5,17-21'],
			['activate', 'true'],
		]);
	});

	it('takes weekday-and-hour settings from expressions, validated like typed ones', async () => {
		const start = future(2, '10:00');
		const result = await runNode({
			credentials: credentials(),
			parameters: schedule({
				scheduledAt: start.picker,
				dispatchOption: '={{ $json.option }}',
				dispatchEnd: '={{ $json.end }}',
				dispatchEndInDays: '={{ $json.days }}',
				dispatchWavesGroup: '={{ $json.waves }}',
			}),
			items: [
				{ option: 'weekdayhour', end: 'inDays', days: '3', waves: 1 },
				{ option: 'weekdayhour', end: 'inDays', days: '9', waves: 1 },
				{ option: 'weekdayhour', end: 'inDays', days: 2, waves: 4 },
			],
			onError: 'continueErrorOutput',
		});

		expect(result.main).toHaveLength(1);
		expect(result.main[0].dispatch).toEqual({
			dispatchOption: 'weekdayhour',
			dispatchEndInDays: 3,
			clicksAsResponseReference: false,
			dispatchWavesGroup: 1,
		});
		expect(result.errorOutput.map((item) => item.error)).toEqual([
			'Dispatch End In Days (with dispatch option weekdayhour) must be a whole number from 1 to 7, not 9',
			'Waves Grouped Together must be a whole number from 1 to 3, not 4',
		]);
		expect(double().requestsTo('mailings/')).toHaveLength(1);
	});

	it('with an expression as Dispatch Option, ends after the default hours unless the option needs days', async () => {
		const start = future(2, '10:00');
		const result = await runNode({
			credentials: credentials(),
			parameters: schedule({ scheduledAt: start.picker, dispatchOption: '={{ $json.option }}' }),
			items: [{ option: 'uniform' }, { option: 'hour' }, { option: 'weekdayhour' }],
			onError: 'continueErrorOutput',
		});

		expect(result.main.map((item) => item.dispatch)).toEqual([
			{ dispatchOption: 'uniform', dispatchEndInHours: 24 },
			{ dispatchOption: 'hour', dispatchEndInHours: 24, clicksAsResponseReference: false, dispatchWavesGroup: 3 },
		]);
		expect(result.errorOutput).toEqual([
			{
				option: 'weekdayhour',
				error: 'Dispatch End "inHours" cannot be used with dispatch option weekdayhour',
				message: expect.stringContaining('With weekdayhour, set Dispatch End'),
			},
		]);
		expect(double().requestsTo('mailings/')).toHaveLength(2);
	});

	it.each<[string, INodeParameters, string]>([
		[
			'uniform ending in 100 hours',
			{ dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 100 },
			'Dispatch End In Hours (with dispatch option uniform) must be a whole number from 2 to 96, not 100',
		],
		[
			'hour ending in 30 hours',
			{ dispatchOption: 'hour', dispatchEnd: 'inHours', dispatchEndInHours: 30 },
			'Dispatch End In Hours (with dispatch option hour) must be a whole number from 2 to 24, not 30',
		],
		[
			'weekdayhour ending in 9 days',
			{ dispatchOption: 'weekdayhour', dispatchEnd: 'inDays', dispatchEndInDays: 9 },
			'Dispatch End In Days (with dispatch option weekdayhour) must be a whole number from 1 to 7, not 9',
		],
		[
			'allowed hour 24',
			{ dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 12, allowedHours: '8-20,24' },
			'Allowed Hours contains 24, but hours go from 0 to 23',
		],
		[
			'a descending allowed-hours range',
			{ dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 12, allowedHours: '22-5' },
			'Allowed Hours has a descending range: "22-5"',
		],
		[
			'an empty allowed-hours part',
			{ dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 12, allowedHours: '8,,9' },
			'Allowed Hours has an empty part: "8,,9"',
		],
	])('refuses %s before any request', async (_case, parameters, message) => {
		const result = await runNode({
			credentials: credentials(),
			parameters: schedule({ scheduledAt: future(1, '12:00').picker, ...parameters }),
		});

		expect(result.error?.message).toBe(message);
		expect(result.error?.description).toBeTruthy();
		expect(result.error?.context?.itemIndex).toBe(0);
		expect(double().requests).toHaveLength(0);
	});

	it('refuses a past date, an interval with the hour option and an end before the start, per item', async () => {
		const past = DateTime.now().setZone('Europe/Berlin').minus({ minutes: 5 });
		const start = future(1, '12:00');
		const result = await runNode({
			credentials: credentials(),
			parameters: schedule({
				scheduledAt: '={{ $json.at }}',
				dispatchOption: '={{ $json.option }}',
				dispatchEnd: '={{ $json.end }}',
				dispatchEndInHours: 12,
				dispatchEndExactDatetime: '={{ $json.until }}',
				dispatchUniformInterval: '={{ $json.interval }}',
			}),
			items: [
				{ at: past.toFormat("yyyy-MM-dd'T'HH:mm:ss"), option: 'none' },
				{ at: start.picker, option: 'hour', end: 'inHours', interval: '30m' },
				{ at: start.picker, option: 'uniform', end: 'exactDatetime', until: `${start.date} 11:00` },
				{ at: start.picker, option: 'uniform', end: 'inDays' },
				{ at: 'next tuesday', option: 'none' },
			],
			onError: 'continueRegularOutput',
		});

		expect(result.main.map((item) => item.error)).toEqual([
			`Scheduled At is in the past: ${past.toFormat('yyyy-MM-dd HH:mm')} (Europe/Berlin)`,
			'Uniform Interval is set, but it is only used with the uniform dispatch option (here: hour)',
			`Dispatch End At (${start.date} 11:00) is not after Scheduled At (${start.date} 12:00)`,
			'Dispatch End "inDays" cannot be used with dispatch option uniform',
			'Scheduled At is not a date-time: "next tuesday"',
		]);
		expect(double().requests).toHaveLength(0);
	});

	it('explains a sealed mailing (405), a mailing that is not REGULAR (400) and an unknown one (404)', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: schedule({ mailingId: '={{ $json.id }}', scheduledAt: future(1, '12:00').picker }),
			items: [{ id: MAILINGS.sealed }, { id: MAILINGS.trigger }, { id: 4242 }],
			onError: 'continueRegularOutput',
		});
		expect(result.main).toEqual([
			{ error: `Mailing with ID ${MAILINGS.sealed} cannot be changed as it is sealed.`, message: expect.stringContaining('Attempts made: 1.') },
			{ error: `Mailing with ID ${MAILINGS.trigger} is not of type REGULAR.`, message: expect.stringContaining('Attempts made: 1.') },
			{ error: 'Mailing with id 4242 not found.', message: expect.stringContaining('Attempts made: 1.') },
		]);

		const sealed = await runNode({
			credentials: credentials(),
			parameters: schedule({ mailingId: MAILINGS.sealed, scheduledAt: future(1, '12:00').picker }),
		});
		expect(sealed.error?.httpCode).toBe('405');
		expect(sealed.error?.description).toContain('sealed (already sent out)');
		const trigger = await runNode({
			credentials: credentials(),
			parameters: schedule({ mailingId: MAILINGS.trigger, scheduledAt: future(1, '12:00').picker }),
		});
		expect(trigger.error?.httpCode).toBe('400');
		expect(trigger.error?.description).toContain('in the past or not a date');
		expect(trigger.error?.description).toContain('REGULAR');
	});

	it('accepts a small XML answer as well as an empty one', async () => {
		double().mailings.scheduleAnswersWithXml = true;
		const start = future(1, '12:00');

		const result = await runNode({ credentials: credentials(), parameters: schedule({ scheduledAt: start.picker }) });

		expect(result.error).toBeUndefined();
		expect(result.main[0].scheduled).toEqual({ date: start.date, hours: 12, minutes: 0, timeZone: 'Europe/Berlin' });
	});

	it('warns in the node that schedule must be the last call for a mailing', async () => {
		const { MailingPlatform } = await import('../../nodes/MailingPlatform/MailingPlatform.node');
		const notice = new MailingPlatform().description.properties.find((property) => property.type === 'notice' && property.displayOptions?.show?.operation?.includes('schedule'));
		expect(notice?.displayName).toMatch(/last call.*content.*stops it from being sent/);
	});
});
