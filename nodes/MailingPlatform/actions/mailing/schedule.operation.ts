import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import type { FailurePolicy, OperationResult } from '../../helpers/itemResults';
import { runPerItem } from '../../helpers/itemResults';
import { parameter as readParameter } from '../../helpers/parameters';
import { platformTimeZone } from '../../helpers/timeZone';
import { apiRequest } from '../../transport';
import type { ScheduleInput } from './scheduleParameters';
import { buildSchedule, FIELD_LABELS } from './scheduleParameters';
import type { DispatchOption, NumericEnd, Range } from './scheduleRules';
import {
	DEFAULT_WAVES_GROUP,
	DISPATCH_OPTIONS,
	DISPATCH_RULES,
	EXACT_END,
	NO_DISPATCH,
	NUMERIC_ENDS,
	optionsWhere,
	UNIFORM_INTERVALS,
	WAVES_GROUP,
} from './scheduleRules';
import { mailingIdProperty, readMailingId } from './mailingId';

const withDispatch = (options: readonly string[]) => ({ show: { dispatchOption: [...options] } });
const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);
const span = ({ min, max }: Range) => `${min} to ${max}`;
const capitalised = (text: string) => `${text[0].toUpperCase()}${text.slice(1)}`;

/** One Dispatch End per numeric end, offered with the options that use it. */
function dispatchEndProperty(end: NumericEnd): INodeProperties {
	return {
		displayName: FIELD_LABELS.dispatchEnd,
		name: 'dispatchEnd',
		type: 'options',
		displayOptions: withDispatch(optionsWhere((rule) => rule.end === end)),
		options: [{ name: NUMERIC_ENDS[end].name, value: end }, { ...EXACT_END }].sort(byName),
		default: end,
		description: 'When the distribution must be finished',
	};
}

/** The numeric end of one dispatch option, with its range. */
function numericEndProperty(option: DispatchOption): INodeProperties {
	const { end, range } = DISPATCH_RULES[option];
	const { parameter, unit, default: initial } = NUMERIC_ENDS[end];
	return {
		displayName: FIELD_LABELS[parameter],
		name: parameter,
		type: 'number',
		displayOptions: { show: { dispatchOption: [option], dispatchEnd: [end] } },
		typeOptions: { minValue: range.min, maxValue: range.max, numberPrecision: 0 },
		default: initial,
		required: true,
		description: `${capitalised(unit)} from the start by which sending must be finished, ${span(range)}`,
	};
}

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
			"When the mailing is sent, in the workflow's timezone unless the value has an offset or Z. It goes as wall-clock time of the credential's Platform Time Zone, seconds dropped.",
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
			...DISPATCH_OPTIONS.map((value) => {
				const { name, sends, end, range } = DISPATCH_RULES[value];
				return { name, value, description: `${sends}, ending within ${span(range)} ${NUMERIC_ENDS[end].unit}` };
			}),
			{ name: 'None', value: NO_DISPATCH, description: 'Send to everyone at the scheduled time' },
		].sort(byName),
		default: NO_DISPATCH,
		description: 'How sending is spread over time',
	},
	// With an expression as Dispatch Option every Dispatch End shows and the last default wins:
	// inHours, valid for two of the three options.
	dispatchEndProperty('inDays'),
	dispatchEndProperty('inHours'),
	...DISPATCH_OPTIONS.map(numericEndProperty),
	{
		displayName: FIELD_LABELS.dispatchEndExactDatetime,
		name: 'dispatchEndExactDatetime',
		type: 'dateTime',
		displayOptions: {
			show: { dispatchOption: [...DISPATCH_OPTIONS], dispatchEnd: [EXACT_END.value] },
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
		displayOptions: withDispatch(optionsWhere((rule) => rule.waves)),
		default: false,
		description: 'Whether clicks (not only opens) count as responses when finding the best times',
	},
	{
		displayName: FIELD_LABELS.dispatchWavesGroup,
		name: 'dispatchWavesGroup',
		type: 'number',
		displayOptions: withDispatch(optionsWhere((rule) => rule.waves)),
		typeOptions: { minValue: WAVES_GROUP.min, maxValue: WAVES_GROUP.max, numberPrecision: 0 },
		default: DEFAULT_WAVES_GROUP,
		description: `The response-based options send in waves, at the hours recipients responded best; this many consecutive waves are grouped together, ${span(WAVES_GROUP)} (the service’s default is ${DEFAULT_WAVES_GROUP})`,
	},
	{
		displayName: FIELD_LABELS.dispatchUniformInterval,
		name: 'dispatchUniformInterval',
		type: 'options',
		displayOptions: withDispatch(optionsWhere((rule) => !rule.waves)),
		options: [
			...Object.entries(UNIFORM_INTERVALS).map(([value, name]) => ({ name, value })),
			{ name: 'Not Set', value: '', description: 'Send no interval and leave it to the service' },
		].sort(byName),
		default: '',
		description: 'How often a share of the mailing is sent',
	},
	{
		displayName: FIELD_LABELS.allowedHours,
		name: 'allowedHours',
		type: 'string',
		displayOptions: withDispatch(DISPATCH_OPTIONS),
		default: '',
		placeholder: 'e.g. 0,3,5,17-21',
		description:
			'Hours of the day (0 to 23) in which sending is allowed, as single hours and ascending ranges separated by commas. Empty allows all 24 hours.',
	},
]);

const INPUT_NAMES = Object.keys(FIELD_LABELS) as Array<keyof typeof FIELD_LABELS>;

export async function execute(this: IExecuteFunctions, policy: FailurePolicy): Promise<OperationResult> {
	return await runPerItem(this, policy, async (itemIndex) => {
		const zones = { workflow: this.getTimezone(), platform: await platformTimeZone.call(this) };
		const mailingId = readMailingId.call(this, itemIndex);
		const input: ScheduleInput = {};
		// Parameters hidden for the chosen option are absent: read them as not set.
		for (const name of INPUT_NAMES) input[name] = readParameter<unknown>(this, name, itemIndex, null);
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
