import { DateTime } from 'luxon';
import type { INodeParameters } from 'n8n-workflow';

import { MAILINGS } from '../double/routes/mailings';
import { useServiceDouble } from '../harness/double';
import { future, schedule } from '../harness/schedule';
import { runNode } from '../harness/workflow';

describe('mailing › schedule in a workflow: dispatch', () => {
	const { double, credentials } = useServiceDouble();

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

	const hoursFix = 'Write hours from 0 to 23, separated by commas, with ascending ranges such as 17-21; for a span over midnight write 22-23,0-5.';

	it.each<[string, INodeParameters, string, string]>([
		[
			'uniform ending in 100 hours',
			{ dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 100 },
			'Dispatch End In Hours (with dispatch option uniform) must be a whole number from 2 to 96, not 100',
			'Enter a whole number from 2 to 96 in Dispatch End In Hours (with dispatch option uniform).',
		],
		[
			'hour ending in 30 hours',
			{ dispatchOption: 'hour', dispatchEnd: 'inHours', dispatchEndInHours: 30 },
			'Dispatch End In Hours (with dispatch option hour) must be a whole number from 2 to 24, not 30',
			'Enter a whole number from 2 to 24 in Dispatch End In Hours (with dispatch option hour).',
		],
		[
			'weekdayhour ending in 9 days',
			{ dispatchOption: 'weekdayhour', dispatchEnd: 'inDays', dispatchEndInDays: 9 },
			'Dispatch End In Days (with dispatch option weekdayhour) must be a whole number from 1 to 7, not 9',
			'Enter a whole number from 1 to 7 in Dispatch End In Days (with dispatch option weekdayhour).',
		],
		[
			'allowed hour 24',
			{ dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 12, allowedHours: '8-20,24' },
			'Allowed Hours contains 24, but hours go from 0 to 23',
			hoursFix,
		],
		[
			'a descending allowed-hours range',
			{ dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 12, allowedHours: '22-5' },
			'Allowed Hours has a descending range: "22-5"',
			hoursFix,
		],
		[
			'an empty allowed-hours part',
			{ dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 12, allowedHours: '8,,9' },
			'Allowed Hours has an empty part: "8,,9"',
			hoursFix,
		],
	])('refuses %s before any request, saying what to enter', async (_case, parameters, message, fix) => {
		const result = await runNode({
			credentials: credentials(),
			parameters: schedule({ scheduledAt: future(1, '12:00').picker, ...parameters }),
		});

		expect(result.error?.message).toBe(message);
		expect(result.error?.description).toBe(fix);
		expect(result.error?.context?.itemIndex).toBe(0);
		expect(double().requests).toHaveLength(0);
	});
});
