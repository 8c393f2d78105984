import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

import { InputProblem, isEmpty } from '../../helpers/values';
import { readBoolean, readChoice, readDateTime, readInteger } from '../../helpers/parameters';
import * as rules from './scheduleRules';

/**
 * Turns the schedule parameters into the query of POST mailings/:id/schedule, refusing
 * whatever the service would refuse (or silently misread) before anything is sent.
 */

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
interface ScheduleZones {
	workflow: string;
	platform: string;
}

interface Schedule {
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
function normaliseAllowedHours(text: string, field = FIELD_LABELS.allowedHours): string {
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
		? rules.NO_DISPATCH
		: readChoice(input.dispatchOption, FIELD_LABELS.dispatchOption, [rules.NO_DISPATCH, ...rules.DISPATCH_OPTIONS]);
	const rule = option === rules.NO_DISPATCH ? undefined : rules.DISPATCH_RULES[option];

	const dispatch: IDataObject = option === rules.NO_DISPATCH ? {} : { dispatchOption: option, ...dispatchEnd(option, input, start, zones) };
	if (rule?.waves === true) {
		dispatch.clicksAsResponseReference = isEmpty(input.clicksAsResponseReference)
			? false
			: readBoolean(input.clicksAsResponseReference, FIELD_LABELS.clicksAsResponseReference);
		dispatch.dispatchWavesGroup = isEmpty(input.dispatchWavesGroup)
			? rules.DEFAULT_WAVES_GROUP
			: readInteger(input.dispatchWavesGroup, FIELD_LABELS.dispatchWavesGroup, rules.WAVES_GROUP.min, rules.WAVES_GROUP.max);
	}
	if (!isEmpty(input.dispatchUniformInterval)) {
		if (rule?.waves !== false) {
			const uniform = rules.optionsWhere((candidate) => !candidate.waves).join(' or ');
			throw new InputProblem(
				`${FIELD_LABELS.dispatchUniformInterval} is set, but it is only used with the ${uniform} dispatch option (here: ${option})`,
				`Leave ${FIELD_LABELS.dispatchUniformInterval} empty unless ${FIELD_LABELS.dispatchOption} is ${uniform}.`,
			);
		}
		dispatch.dispatchUniformInterval = readChoice(
			input.dispatchUniformInterval,
			FIELD_LABELS.dispatchUniformInterval,
			Object.keys(rules.UNIFORM_INTERVALS),
		);
	}
	if (!isEmpty(input.allowedHours)) {
		if (rule === undefined) {
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

function dispatchEnd(option: rules.DispatchOption, input: ScheduleInput, start: DateTime, zones: ScheduleZones): IDataObject {
	const timeZone = zones.workflow;
	const { end, range } = rules.DISPATCH_RULES[option];
	const offered: string[] = [end, rules.EXACT_END.value];
	if (!offered.includes(String(input.dispatchEnd))) {
		throw new InputProblem(
			`${FIELD_LABELS.dispatchEnd} "${String(input.dispatchEnd)}" cannot be used with dispatch option ${option}`,
			`With ${option}, set ${FIELD_LABELS.dispatchEnd} to one of ${offered.map((candidate) => `"${candidate}"`).join(', ')}. When ${FIELD_LABELS.dispatchOption} is an expression, give ${FIELD_LABELS.dispatchEnd} by an expression too.`,
		);
	}
	if (input.dispatchEnd === rules.EXACT_END.value) {
		const at = readDateTime(input.dispatchEndExactDatetime, FIELD_LABELS.dispatchEndExactDatetime, timeZone).startOf('minute');
		if (at <= start) {
			throw new InputProblem(
				`${FIELD_LABELS.dispatchEndExactDatetime} (${at.toFormat(WALL_CLOCK)}) is not after ${FIELD_LABELS.scheduledAt} (${start.toFormat(WALL_CLOCK)})`,
				`Choose an end after the start of the mailing, both in the workflow's timezone (${timeZone}).`,
			);
		}
		return { dispatchEndExactDatetime: at.setZone(zones.platform).toFormat(WALL_CLOCK) };
	}
	const name = rules.NUMERIC_ENDS[end].parameter;
	const label = `${FIELD_LABELS[name]} (with dispatch option ${option})`;
	return { [name]: readInteger(input[name], label, range.min, range.max) };
}
