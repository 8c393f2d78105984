import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { InputProblem, isEmpty } from '../../helpers/input';
import { readBoolean, readChoice, readDateTime, readInteger } from '../../helpers/parameters';

/**
 * Turns the schedule parameters into the query of POST mailings/:id/schedule, refusing
 * whatever the service would refuse (or silently misread) before anything is sent.
 */

export const DISPATCH_OPTIONS = ['none', 'hour', 'weekdayhour', 'uniform'] as const;
export type DispatchOption = (typeof DISPATCH_OPTIONS)[number];
export const UNIFORM_INTERVALS = ['hour', '30m', '20m', '15m', '10m'] as const;

type DispatchEnd = 'inHours' | 'inDays' | 'exactDatetime';

/** The end parameters each option accepts, with the spec's ranges. */
export const DISPATCH_END_RULES: Readonly<
	Record<Exclude<DispatchOption, 'none'>, Partial<Record<DispatchEnd, { min: number; max: number } | 'exact'>>>
> = {
	uniform: { inHours: { min: 2, max: 96 }, exactDatetime: 'exact' },
	hour: { inHours: { min: 2, max: 24 }, exactDatetime: 'exact' },
	weekdayhour: { inDays: { min: 1, max: 7 }, exactDatetime: 'exact' },
};

export const FIELD_LABELS = {
	scheduledAt: 'Scheduled At',
	activate: 'Activate',
	dispatchOption: 'Dispatch Option',
	dispatchEnd: 'Dispatch End',
	dispatchEndInHours: 'Dispatch End In Hours',
	dispatchEndInDays: 'Dispatch End In Days',
	dispatchEndExactDatetime: 'Dispatch End At',
	clicksAsResponseReference: 'Clicks as Response Reference',
	dispatchWavesGroup: 'Waves Grouped Together',
	dispatchUniformInterval: 'Uniform Interval',
	allowedHours: 'Allowed Hours',
} as const;

export type ScheduleInput = { -readonly [name in keyof typeof FIELD_LABELS]?: unknown };

/**
 * The user picks times in the workflow's zone; the service reads its `date`/`hours`/`minutes`
 * and `dispatchEndExactDatetime` as wall-clock time of the platform account's zone.
 */
export interface ScheduleZones {
	workflow: string;
	platform: string;
}

export interface Schedule {
	/** Query parameters in the order they are sent. */
	query: Record<string, string | number | boolean>;
	/** What was sent: wall-clock time in `timeZone`, the platform's. */
	scheduled: { date: string; hours: string; minutes: string; timeZone: string };
	activated: boolean;
	dispatch: IDataObject;
}

const WALL_CLOCK = 'yyyy-MM-dd HH:mm';

/**
 * Checks allowed hours in the spec's form (`0,3,5,17-21`) and writes them compactly:
 * sorted, duplicates merged, runs of hours as ranges.
 */
export function normaliseAllowedHours(text: string, field = FIELD_LABELS.allowedHours): string {
	const hint = `Write hours from 0 to 23, separated by commas, with ascending ranges such as 17-21; for a span over midnight write 22-23,0-5.`;
	const hours = new Set<number>();
	for (const rawPart of text.split(',')) {
		const part = rawPart.trim();
		const match = /^(\d{1,2})\s*(?:-\s*(\d{1,2}))?$/.exec(part);
		if (match === null) {
			throw new InputProblem(
				part === '' ? `${field} has an empty part: "${text}"` : `${field} has a part that is not an hour or a range: "${part}"`,
				hint,
			);
		}
		const from = Number(match[1]);
		const to = match[2] === undefined ? from : Number(match[2]);
		for (const hour of [from, to]) {
			if (hour > 23) throw new InputProblem(`${field} contains ${hour}, but hours go from 0 to 23`, hint);
		}
		if (to < from) throw new InputProblem(`${field} has a descending range: "${part}"`, hint);
		for (let hour = from; hour <= to; hour++) hours.add(hour);
	}
	const sorted = [...hours].sort((a, b) => a - b);
	const parts: string[] = [];
	for (let start = 0; start < sorted.length; ) {
		let end = start;
		while (end + 1 < sorted.length && sorted[end + 1] === sorted[end] + 1) end++;
		parts.push(end === start ? String(sorted[start]) : `${sorted[start]}-${sorted[end]}`);
		start = end + 1;
	}
	return parts.join(',');
}

export function buildSchedule(input: ScheduleInput, zones: ScheduleZones, now: DateTime = DateTime.now()): Schedule {
	const timeZone = zones.workflow;
	// To the minute: the API has no field for seconds.
	const start = readDateTime(input.scheduledAt, FIELD_LABELS.scheduledAt, timeZone).startOf('minute');
	if (start < now.setZone(timeZone).startOf('minute')) {
		throw new InputProblem(
			`${FIELD_LABELS.scheduledAt} is in the past: ${start.toFormat(WALL_CLOCK)} (${timeZone})`,
			`Choose a time after now (${now.setZone(timeZone).toFormat(WALL_CLOCK)} in ${timeZone}, the workflow's timezone).`,
		);
	}
	const platformStart = start.setZone(zones.platform);
	const scheduled = {
		date: platformStart.toFormat('yyyy-MM-dd'),
		hours: platformStart.toFormat('HH'),
		minutes: platformStart.toFormat('mm'),
	};
	const activated = isEmpty(input.activate) ? true : readBoolean(input.activate, FIELD_LABELS.activate);
	const option = isEmpty(input.dispatchOption)
		? 'none'
		: readChoice(input.dispatchOption, FIELD_LABELS.dispatchOption, DISPATCH_OPTIONS);

	const dispatch: IDataObject = option === 'none' ? {} : { dispatchOption: option, ...dispatchEnd(option, input, start, zones) };
	if (option === 'hour' || option === 'weekdayhour') {
		dispatch.clicksAsResponseReference = isEmpty(input.clicksAsResponseReference)
			? false
			: readBoolean(input.clicksAsResponseReference, FIELD_LABELS.clicksAsResponseReference);
		dispatch.dispatchWavesGroup = isEmpty(input.dispatchWavesGroup)
			? 3
			: readInteger(input.dispatchWavesGroup, FIELD_LABELS.dispatchWavesGroup, 1, 3);
	}
	if (!isEmpty(input.dispatchUniformInterval)) {
		if (option !== 'uniform') {
			throw new InputProblem(
				`${FIELD_LABELS.dispatchUniformInterval} is set, but it is only used with the uniform dispatch option (here: ${option})`,
				`Leave ${FIELD_LABELS.dispatchUniformInterval} empty unless ${FIELD_LABELS.dispatchOption} is uniform.`,
			);
		}
		dispatch.dispatchUniformInterval = readChoice(
			input.dispatchUniformInterval,
			FIELD_LABELS.dispatchUniformInterval,
			UNIFORM_INTERVALS,
		);
	}
	if (!isEmpty(input.allowedHours)) {
		if (option === 'none') {
			throw new InputProblem(
				`${FIELD_LABELS.allowedHours} is set, but it is only used with a dispatch option`,
				`Choose a ${FIELD_LABELS.dispatchOption}, or leave ${FIELD_LABELS.allowedHours} empty.`,
			);
		}
		dispatch.allowedHours = normaliseAllowedHours(String(input.allowedHours));
	}

	const query: Schedule['query'] = { ...scheduled };
	for (const [name, value] of Object.entries(dispatch)) query[name] = value as string | number | boolean;
	query.activate = activated;
	return { query, scheduled: { ...scheduled, timeZone: zones.platform }, activated, dispatch };
}

function dispatchEnd(
	option: Exclude<DispatchOption, 'none'>,
	input: ScheduleInput,
	start: DateTime,
	zones: ScheduleZones,
): IDataObject {
	const timeZone = zones.workflow;
	const rules = Object.entries(DISPATCH_END_RULES[option]);
	const offered = rules.map(([candidate]) => candidate);
	const [end, rule] = rules.find(([candidate]) => candidate === input.dispatchEnd) ?? [];
	if (end === undefined || rule === undefined) {
		throw new InputProblem(
			`${FIELD_LABELS.dispatchEnd} "${String(input.dispatchEnd)}" cannot be used with dispatch option ${option}`,
			`With ${option}, set ${FIELD_LABELS.dispatchEnd} to one of ${offered.map((candidate) => `"${candidate}"`).join(', ')}. When ${FIELD_LABELS.dispatchOption} is an expression, give ${FIELD_LABELS.dispatchEnd} by an expression too.`,
		);
	}
	if (rule === 'exact') {
		const at = readDateTime(input.dispatchEndExactDatetime, FIELD_LABELS.dispatchEndExactDatetime, timeZone).startOf('minute');
		if (at <= start) {
			throw new InputProblem(
				`${FIELD_LABELS.dispatchEndExactDatetime} (${at.toFormat(WALL_CLOCK)}) is not after ${FIELD_LABELS.scheduledAt} (${start.toFormat(WALL_CLOCK)})`,
				`Choose an end after the start of the mailing, both in the workflow's timezone (${timeZone}).`,
			);
		}
		return { dispatchEndExactDatetime: at.setZone(zones.platform).toFormat(WALL_CLOCK) };
	}
	const name = end === 'inHours' ? 'dispatchEndInHours' : 'dispatchEndInDays';
	const label = `${FIELD_LABELS[name]} (with dispatch option ${option})`;
	return { [name]: readInteger(input[name], label, rule.min, rule.max) };
}
