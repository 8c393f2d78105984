import { DateTime } from 'luxon';
import type { INode, INodeParameters, INodeProperties } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { buildSchedule } from '../../nodes/MailingPlatform/actions/mailing/scheduleParameters';
import { MailingPlatform } from '../../nodes/MailingPlatform/MailingPlatform.node';

const BERLIN = 'Europe/Berlin';
const BOTH_BERLIN = { workflow: BERLIN, platform: BERLIN };
const NOW = DateTime.fromISO('2030-03-30T10:20:30', { zone: BERLIN });

describe('mailing › allowed hours', () => {
	/** The Allowed Hours the schedule sends for `text`, with a uniform dispatch. */
	const allowedHours = (text: string) =>
		buildSchedule({ scheduledAt: '2030-04-01T08:00', dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 12, allowedHours: text }, BOTH_BERLIN, NOW).query
			.allowedHours;

	it.each([
		['0,3,5,17-21', '0,3,5,17-21'],
		['8-20', '8-20'],
		[' 17-21 ', '17-21'],
		['5,3,4', '3-5'],
		['08 - 10, 9, 23', '8-10,23'],
		['7-7', '7'],
		['0-23', '0-23'],
	])('sends %j as %j', (text, expected) => {
		expect(allowedHours(text)).toBe(expected);
	});

	it.each([
		['24', 'Allowed Hours contains 24, but hours go from 0 to 23'],
		['20-8', 'Allowed Hours has a descending range: "20-8"'],
		['3,', 'Allowed Hours has an empty part: "3,"'],
		['3;4', 'Allowed Hours has a part that is not an hour or a range: "3;4"'],
		['-1', 'Allowed Hours has a part that is not an hour or a range: "-1"'],
		['1-2-3', 'Allowed Hours has a part that is not an hour or a range: "1-2-3"'],
	])('refuses %j', (text, message) => {
		expect(() => allowedHours(text)).toThrow(message);
	});
});

describe('mailing › schedule parameters', () => {
	it('accepts the current minute but refuses the one before, dropping the seconds (the API has no field for them)', () => {
		expect(buildSchedule({ scheduledAt: '2030-03-30T10:20:59' }, BOTH_BERLIN, NOW).scheduled).toEqual({
			date: '2030-03-30',
			hours: '10',
			minutes: '20',
			timeZone: BERLIN,
		});
		expect(() => buildSchedule({ scheduledAt: '2030-03-30T10:19:59' }, BOTH_BERLIN, NOW)).toThrow(
			'Scheduled At is in the past: 2030-03-30 10:19 (Europe/Berlin)',
		);
	});

	it('takes a Scheduled At given as epoch milliseconds', () => {
		// 1,900,000,000,000 ms after 1970-01-01T00:00Z is 2030-03-17T17:46:40Z, 18:46 in Berlin.
		expect(buildSchedule({ scheduledAt: 1_900_000_000_000 }, BOTH_BERLIN, DateTime.fromISO('2030-01-01T00:00Z')).scheduled).toMatchObject({
			date: '2030-03-17',
			hours: '18',
			minutes: '46',
		});
	});

	it('sends the wall-clock time the clocks show after the spring-forward gap', () => {
		// 02:30 does not exist in Berlin on 2030-03-31; Luxon moves it to 03:30 summer time.
		expect(buildSchedule({ scheduledAt: '2030-03-31T02:30' }, BOTH_BERLIN, NOW).scheduled).toEqual({
			date: '2030-03-31',
			hours: '03',
			minutes: '30',
			timeZone: BERLIN,
		});
	});

	it('sends the platform zone’s wall clock of the instant picked in the workflow’s zone', () => {
		const zones = { workflow: 'America/New_York', platform: BERLIN };
		const schedule = buildSchedule(
			{ scheduledAt: '2030-04-01T21:00', dispatchOption: 'hour', dispatchEnd: 'exactDatetime', dispatchEndExactDatetime: '2030-04-01T23:30:45' },
			zones,
			NOW,
		);
		expect(schedule.query).toMatchObject({ date: '2030-04-02', hours: '03', minutes: '00', dispatchEndExactDatetime: '2030-04-02 05:30' });
	});

	it('keeps activate=false and takes booleans given as text', () => {
		const schedule = buildSchedule({ scheduledAt: '2030-04-01T08:00', activate: 'false' }, BOTH_BERLIN, NOW);
		expect(schedule.activated).toBe(false);
		expect(schedule.query.activate).toBe(false);
	});

	it('sends clicks and waves only for the response-based options', () => {
		const common = { scheduledAt: '2030-04-01T08:00', clicksAsResponseReference: true, dispatchWavesGroup: 1 };
		const uniform = buildSchedule({ ...common, dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 2 }, BOTH_BERLIN, NOW);
		expect(uniform.dispatch).toEqual({ dispatchOption: 'uniform', dispatchEndInHours: 2 });
		const hour = buildSchedule({ ...common, dispatchOption: 'hour', dispatchEnd: 'inHours', dispatchEndInHours: '24' }, BOTH_BERLIN, NOW);
		expect(hour.dispatch).toEqual({
			dispatchOption: 'hour',
			dispatchEndInHours: 24,
			clicksAsResponseReference: true,
			dispatchWavesGroup: 1,
		});
	});

	it('refuses settings that belong to no dispatch option or an unknown one', () => {
		const at = { scheduledAt: '2030-04-01T08:00' };
		expect(() => buildSchedule({ ...at, allowedHours: '8-20' }, BOTH_BERLIN, NOW)).toThrow(
			'Allowed Hours is set, but it is only used with a dispatch option',
		);
		expect(() => buildSchedule({ ...at, dispatchUniformInterval: 'hour' }, BOTH_BERLIN, NOW)).toThrow(
			'Uniform Interval is set, but it is only used with the uniform dispatch option (here: none)',
		);
		expect(() => buildSchedule({ ...at, dispatchOption: 'daily' }, BOTH_BERLIN, NOW)).toThrow(
			'Dispatch Option must be one of "none", "hour", "weekdayhour", "uniform", not "daily"',
		);
		expect(() =>
			buildSchedule({ ...at, dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 1 }, BOTH_BERLIN, NOW),
		).toThrow('from 2 to 96, not 1');
		expect(() =>
			buildSchedule({ ...at, dispatchOption: 'uniform', dispatchEnd: 'inHours', dispatchEndInHours: 12, dispatchUniformInterval: '5m' }, BOTH_BERLIN, NOW),
		).toThrow('Uniform Interval must be one of "hour", "30m", "20m", "15m", "10m", not "5m"');
		expect(() =>
			buildSchedule({ ...at, dispatchOption: 'weekdayhour', dispatchEnd: 'exactDatetime', dispatchEndExactDatetime: '' }, BOTH_BERLIN, NOW),
		).toThrow('Dispatch End At is empty');
	});
});

describe('mailing › the schedule panel offers the spec’s choices and ranges', () => {
	const description = new MailingPlatform().description;
	/** The panel's schedule fields for these values, as the editor shows them. */
	function shown(values: INodeParameters): Map<string, INodeProperties> {
		const parameters = { resource: 'mailing', operation: 'schedule', ...values };
		const visible = description.properties.filter((property) =>
			NodeHelpers.displayParameter(parameters, property, { typeVersion: 1.1 } as INode, description),
		);
		return new Map(visible.map((property) => [property.name, property]));
	}
	const values = (property: INodeProperties | undefined) =>
		(property?.options ?? []).map((option) => ('value' in option ? option.value : undefined));

	it('offers the dispatch options, ends and intervals of the spec', () => {
		expect(values(shown({}).get('dispatchOption'))).toEqual(['hour', 'weekdayhour', 'none', 'uniform']);
		expect(values(shown({ dispatchOption: 'uniform' }).get('dispatchEnd'))).toEqual(['inHours', 'exactDatetime']);
		expect(values(shown({ dispatchOption: 'hour' }).get('dispatchEnd'))).toEqual(['inHours', 'exactDatetime']);
		expect(values(shown({ dispatchOption: 'weekdayhour' }).get('dispatchEnd'))).toEqual(['inDays', 'exactDatetime']);
		expect(values(shown({ dispatchOption: 'uniform' }).get('dispatchUniformInterval'))).toEqual(['10m', '15m', '20m', '30m', 'hour', '']);
		expect(shown({ dispatchOption: 'hour' }).has('dispatchUniformInterval')).toBe(false);
	});

	// The API spec: dispatchEndInHours 2 to 96 (uniform), 2 to 24 (hour); dispatchEndInDays 1 to 7
	// (weekdayhour); dispatchWavesGroup 1, 2 or 3 (default 3) with hour and weekdayhour.
	it.each([
		['uniform', 'inHours', 'dispatchEndInHours', 2, 96],
		['hour', 'inHours', 'dispatchEndInHours', 2, 24],
		['weekdayhour', 'inDays', 'dispatchEndInDays', 1, 7],
	])('with %s, %s: the node takes %s from %i to %i in whole numbers, the range the panel lets a user type and names', (dispatchOption, dispatchEnd, name, min, max) => {
		const schedule = (value: number) => buildSchedule({ scheduledAt: '2030-04-01T08:00', dispatchOption, dispatchEnd, [name]: value }, BOTH_BERLIN, NOW);
		const accepts = (value: number) => {
			try {
				return schedule(value).query[name] === value;
			} catch {
				return false;
			}
		};
		expect([min - 1, min, min + 0.5, max, max + 1].map(accepts)).toEqual([false, true, false, true, false]);
		expect(() => schedule(max + 1)).toThrow(`from ${min} to ${max}, not ${max + 1}`);
		// n8n's editor keeps a number field within its minValue and maxValue: every value it lets
		// through is one the node accepts, and the next one out either side is refused.
		const field = shown({ dispatchOption, dispatchEnd }).get(name);
		const { minValue = Number.NEGATIVE_INFINITY, maxValue = Number.POSITIVE_INFINITY } = field?.typeOptions ?? {};
		expect([minValue - 1, minValue, maxValue, maxValue + 1].map(accepts)).toEqual([false, true, true, false]);
		expect(field?.description).toContain(`${min} to ${max}`);
	});

	it.each(['hour', 'weekdayhour'])('with %s, groups 1 to 3 waves, 3 unless set', (dispatchOption) => {
		const field = shown({ dispatchOption }).get('dispatchWavesGroup');
		expect([field?.typeOptions?.minValue, field?.typeOptions?.maxValue, field?.default]).toEqual([1, 3, 3]);
		const end = dispatchOption === 'hour' ? { dispatchEnd: 'inHours', dispatchEndInHours: 24 } : { dispatchEnd: 'inDays', dispatchEndInDays: 7 };
		const schedule = (dispatchWavesGroup?: number) =>
			buildSchedule({ scheduledAt: '2030-04-01T08:00', dispatchOption, ...end, dispatchWavesGroup }, BOTH_BERLIN, NOW);
		expect(schedule().query.dispatchWavesGroup).toBe(3);
		expect(schedule(1).query.dispatchWavesGroup).toBe(1);
		expect(() => schedule(4)).toThrow('from 1 to 3, not 4');
		expect(shown({ dispatchOption: 'uniform' }).has('dispatchWavesGroup')).toBe(false);
	});
});
