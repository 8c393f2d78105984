import { DateTime } from 'luxon';

/** The service's own times, which carry no zone (output); date-time parameters are read in `parameters`. */

/** The service's times: `YYYY-MM-DD HH:MM:SS` (blocks) or with tenths (`.S`, contacts), no zone. */
const SERVICE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;

/**
 * A service time read as wall-clock time in `timeZone`; undefined when not in that format. A
 * time the zone repeats (the autumn DST change) is always read as its second occurrence
 * (standard time), one the zone skips as moved forward by the gap: one text, one instant.
 */
function parseServiceTime(value: unknown, timeZone: string): DateTime | undefined {
	const match = typeof value === 'string' ? SERVICE_TIME.exec(value) : null;
	if (match === null) return undefined;
	const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
	const millisecond = match[7] === undefined ? 0 : Number(match[7].padEnd(3, '0'));
	const time = DateTime.fromObject({ year, month, day, hour, minute, second, millisecond }, { zone: timeZone });
	return time.isValid ? time : undefined;
}

/**
 * The zone's offset (minutes) for one wall-clock hour, or null where that hour is irregular (a
 * daylight-saving gap). Cached, because reading a zone is slow next to reading a time (figures
 * in docs/benchmarks.md), and a report's times fall in few hours.
 */
const hourOffsets = new Map<string, number | null>();
/** A year of one zone's hours (8,784) fits. */
const HOUR_OFFSET_CACHE_LIMIT = 10_000;

function hourOffset(hourKey: string, match: RegExpExecArray, timeZone: string): number | null {
	const key = `${timeZone}|${hourKey}`;
	let offset = hourOffsets.get(key);
	if (offset === undefined) {
		const [year, month, day, hour] = match.slice(1, 5).map(Number);
		const start = DateTime.fromObject({ year, month, day, hour }, { zone: timeZone });
		const startOfNext = start.plus({ hours: 1 });
		offset = start.isValid && start.hour === hour && startOfNext.offset === start.offset ? start.offset : null;
		if (hourOffsets.size >= HOUR_OFFSET_CACHE_LIMIT) hourOffsets.clear();
		hourOffsets.set(key, offset);
	}
	return offset;
}

function formatOffset(minutes: number): string {
	const sign = minutes < 0 ? '-' : '+';
	const absolute = Math.abs(minutes);
	return `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
}

/** The ISO 8601 form of a service time; null when missing or unreadable (the value as sent stays beside it). */
export function serviceTimeToIso(value: unknown, timeZone: string): string | null {
	const match = typeof value === 'string' ? SERVICE_TIME.exec(value) : null;
	if (match === null) return null;
	const offset = hourOffset((value as string).slice(0, 13), match, timeZone);
	if (offset === null) return parseServiceTime(value, timeZone)?.toISO() ?? null;
	const millisecond = (match[7] ?? '').padEnd(3, '0');
	// Joined, not concatenated: one flat string, where concatenation leaves a rope of many pieces,
	// several times larger, in every item that keeps the time (docs/benchmarks.md).
	return [match[1], '-', match[2], '-', match[3], 'T', match[4], ':', match[5], ':', match[6], '.', millisecond, formatOffset(offset)].join('');
}

