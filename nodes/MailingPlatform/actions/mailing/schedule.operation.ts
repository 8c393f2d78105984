import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { runPerItem } from '../../helpers/perItem';
import { platformTimeZone } from '../../helpers/timeZone';
import { apiRequest } from '../../transport';
import type { ScheduleInput } from './scheduleParameters';
import { buildSchedule, FIELD_LABELS } from './scheduleParameters';
import { mailingIdProperty, readMailingId } from './mailingId';

const withDispatch = (...options: string[]) => ({ show: { dispatchOption: options } });
const endInHours = {
	displayName: FIELD_LABELS.dispatchEndInHours,
	name: 'dispatchEndInHours',
	type: 'number',
	default: 24,
	required: true,
} as const;

export const description: INodeProperties[] = showFor('mailing', 'schedule', [
	mailingIdProperty,
	{
		displayName:
			'Schedule must be the last call for a mailing: changing its content afterwards stops it from being sent',
		name: 'lastCallNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: FIELD_LABELS.scheduledAt,
		name: 'scheduledAt',
		type: 'dateTime',
		default: '',
		required: true,
		description:
			"When the mailing is sent, read in the workflow's timezone (Workflow Settings); a value with an offset or Z is taken as it is. It is sent as wall-clock time in the credential's Platform Time Zone. Seconds are ignored.",
	},
	{
		displayName: FIELD_LABELS.activate,
		name: 'activate',
		type: 'boolean',
		default: true,
		description: 'Whether the mailing is activated once the schedule is set; otherwise only the schedule is stored',
	},
	{
		displayName: FIELD_LABELS.dispatchOption,
		name: 'dispatchOption',
		type: 'options',
		options: [
			{
				name: 'By Hour (Response-Based)',
				value: 'hour',
				description: 'Send in waves at the hours recipients responded best, ending within 2 to 24 hours',
			},
			{
				name: 'By Weekday and Hour (Response-Based)',
				value: 'weekdayhour',
				description: 'Send in waves at the weekdays and hours recipients responded best, ending within 1 to 7 days',
			},
			{ name: 'None', value: 'none', description: 'Send to everyone at the scheduled time' },
			{
				name: 'Uniform',
				value: 'uniform',
				description: 'Spread the sending evenly, ending within 2 to 96 hours',
			},
		],
		default: 'none',
		description: 'How sending is spread over time',
	},
	// With an expression as Dispatch Option both show and the later default wins: inHours,
	// valid for two of the three options.
	{
		displayName: FIELD_LABELS.dispatchEnd,
		name: 'dispatchEnd',
		type: 'options',
		displayOptions: withDispatch('weekdayhour'),
		options: [
			{ name: 'After a Number of Days', value: 'inDays' },
			{ name: 'At an Exact Date and Time', value: 'exactDatetime' },
		],
		default: 'inDays',
		description: 'When the distribution must be finished',
	},
	{
		displayName: FIELD_LABELS.dispatchEnd,
		name: 'dispatchEnd',
		type: 'options',
		displayOptions: withDispatch('hour', 'uniform'),
		options: [
			{ name: 'After a Number of Hours', value: 'inHours' },
			{ name: 'At an Exact Date and Time', value: 'exactDatetime' },
		],
		default: 'inHours',
		description: 'When the distribution must be finished',
	},
	{
		...endInHours,
		displayOptions: { show: { dispatchOption: ['uniform'], dispatchEnd: ['inHours'] } },
		typeOptions: { minValue: 2, maxValue: 96, numberPrecision: 0 },
		description: 'Hours from the start by which sending must be finished, 2 to 96',
	},
	{
		...endInHours,
		displayOptions: { show: { dispatchOption: ['hour'], dispatchEnd: ['inHours'] } },
		typeOptions: { minValue: 2, maxValue: 24, numberPrecision: 0 },
		description: 'Hours from the start by which sending must be finished, 2 to 24',
	},
	{
		displayName: FIELD_LABELS.dispatchEndInDays,
		name: 'dispatchEndInDays',
		type: 'number',
		displayOptions: { show: { dispatchOption: ['weekdayhour'], dispatchEnd: ['inDays'] } },
		typeOptions: { minValue: 1, maxValue: 7, numberPrecision: 0 },
		default: 7,
		required: true,
		description: 'Days from the start by which sending must be finished, 1 to 7',
	},
	{
		displayName: FIELD_LABELS.dispatchEndExactDatetime,
		name: 'dispatchEndExactDatetime',
		type: 'dateTime',
		displayOptions: {
			show: { dispatchOption: ['hour', 'weekdayhour', 'uniform'], dispatchEnd: ['exactDatetime'] },
		},
		default: '',
		// Not marked required: with an expression as Dispatch Option every field shows, and an
		// empty required one would block the workflow. An empty value is refused when used.
		description: "When sending must be finished, read like Scheduled At; must be after it",
	},
	{
		displayName: FIELD_LABELS.clicksAsResponseReference,
		name: 'clicksAsResponseReference',
		type: 'boolean',
		displayOptions: withDispatch('hour', 'weekdayhour'),
		default: false,
		description: 'Whether clicks (not only opens) count as responses when finding the best times',
	},
	{
		displayName: FIELD_LABELS.dispatchWavesGroup,
		name: 'dispatchWavesGroup',
		type: 'number',
		displayOptions: withDispatch('hour', 'weekdayhour'),
		typeOptions: { minValue: 1, maxValue: 3, numberPrecision: 0 },
		default: 3,
		description:
			'The response-based options send in waves, at the hours recipients responded best; this many consecutive waves are grouped together, 1 to 3 (the service’s default is 3)',
	},
	{
		displayName: FIELD_LABELS.dispatchUniformInterval,
		name: 'dispatchUniformInterval',
		type: 'options',
		displayOptions: withDispatch('uniform'),
		options: [
			{ name: 'Every 10 Minutes', value: '10m' },
			{ name: 'Every 15 Minutes', value: '15m' },
			{ name: 'Every 20 Minutes', value: '20m' },
			{ name: 'Every 30 Minutes', value: '30m' },
			{ name: 'Every Hour', value: 'hour' },
			{ name: 'Not Set', value: '', description: 'Send no interval and leave it to the service' },
		],
		default: '',
		description: 'How often a share of the mailing is sent',
	},
	{
		displayName: FIELD_LABELS.allowedHours,
		name: 'allowedHours',
		type: 'string',
		displayOptions: withDispatch('hour', 'weekdayhour', 'uniform'),
		default: '',
		placeholder: 'e.g. 0,3,5,17-21',
		description:
			'Hours of the day (0 to 23) in which sending is allowed, as single hours and ascending ranges separated by commas. Empty allows all 24 hours.',
	},
]);

const INPUT_NAMES = Object.keys(FIELD_LABELS) as Array<keyof typeof FIELD_LABELS>;

export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runPerItem.call(this, items, async (itemIndex) => {
		const zones = { workflow: this.getTimezone(), platform: await platformTimeZone.call(this) };
		const mailingId = readMailingId.call(this, itemIndex);
		const input: ScheduleInput = {};
		// Parameters hidden for the chosen option are absent: read them as not set.
		for (const name of INPUT_NAMES) input[name] = this.getNodeParameter(name, itemIndex, null);
		const schedule = buildSchedule(input, zones);

		// The answer's body is not specified: only the status counts.
		await apiRequest.call(this, {
			method: 'POST',
			path: ['mailings', mailingId, 'schedule'],
			query: schedule.query,
			// Setting the same schedule twice leaves the same schedule.
			repeatable: true,
			itemIndex,
			errorDescriptions: {
				400: `The service refused the schedule: the date is in the past or not a date. It was sent as ${schedule.scheduled.date} ${schedule.scheduled.hours}:${schedule.scheduled.minutes}, wall-clock time in ${zones.platform}; if the platform account runs in another zone, set Platform Time Zone in the credential. Only mailings of type REGULAR can be scheduled.`,
				404: `Mailing ${mailingId} was not found, or (as the service documents this answer) no schedule is set for it. Check Mailing ID.`,
				405: `Mailing ${mailingId} is sealed (already sent out), so it can no longer be scheduled.`,
			},
		});
		const { date, hours, minutes, timeZone } = schedule.scheduled;
		return {
			mailingId,
			scheduled: { date, hours: Number(hours), minutes: Number(minutes), timeZone },
			activated: schedule.activated,
			...(Object.keys(schedule.dispatch).length === 0 ? {} : { dispatch: schedule.dispatch }),
			// Exactly the query the service received, e.g. hours "09".
			sent: schedule.query,
		};
	});
}
