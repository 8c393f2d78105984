import { DateTime } from 'luxon';
import type { IDataObject } from 'n8n-workflow';

/** The service's times: `YYYY-MM-DD HH:MM:SS` (blocks) or with tenths (`.S`, contacts), no zone. */
const SERVICE_TIME = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/;

/** A service time read as wall-clock time in `timeZone`; undefined when not in that format. */
export function parseServiceTime(value: unknown, timeZone: string): DateTime | undefined {
	const match = typeof value === 'string' ? SERVICE_TIME.exec(value) : null;
	if (match === null) return undefined;
	const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number);
	const millisecond = match[7] === undefined ? 0 : Number(match[7].padEnd(3, '0'));
	const time = DateTime.fromObject({ year, month, day, hour, minute, second, millisecond }, { zone: timeZone });
	return time.isValid ? time : undefined;
}

/**
 * The zone's offset (minutes) for one wall-clock hour, or null where that hour is irregular (a
 * daylight-saving gap). Cached, because reading a zone is slow and a report holds thousands of
 * times from the same few hours.
 */
const hourOffsets = new Map<string, number | null>();
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
	return `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}.${millisecond}${formatOffset(offset)}`;
}

function asObject(value: unknown): IDataObject | null {
	return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as IDataObject) : null;
}

function asList(value: unknown): IDataObject[] {
	if (Array.isArray(value)) return value.filter((entry): entry is IDataObject => asObject(entry) !== null);
	return [];
}

/**
 * One parsed `block` as the node emits it: everything the service sent, lists as arrays, plus
 * `timestampIso`, `contact.createdIso` and `contact.updatedIso` beside the values as sent.
 */
export function toRawBlock(block: IDataObject, timeZone: string): IDataObject {
	const raw: IDataObject = { ...block, timestampIso: serviceTimeToIso(block.timestamp, timeZone) };
	const contact = asObject(block.contact);
	if (contact !== null) {
		raw.contact = {
			...contact,
			createdIso: serviceTimeToIso(contact.created, timeZone),
			updatedIso: serviceTimeToIso(contact.updated, timeZone),
			standard_fields: asList(contact.standard_fields),
			custom_fields: asList(contact.custom_fields),
		};
	}
	return raw;
}

function fieldsByName(fields: unknown): IDataObject {
	const byName: IDataObject = {};
	for (const field of asList(fields)) {
		if (typeof field.name === 'string') byName[field.name] = field.value ?? null;
	}
	return byName;
}

/** A raw block (from `toRawBlock`) as one flat item, times in ISO 8601. */
export function toSimpleBlock(raw: IDataObject): IDataObject {
	const contact = asObject(raw.contact);
	return {
		contactId: contact?.id ?? null,
		email: contact?.email ?? null,
		externalId: contact?.external_id ?? null,
		timestamp: raw.timestampIso ?? raw.timestamp ?? null,
		oldStatus: raw.old_status ?? null,
		newStatus: raw.new_status ?? null,
		reason: raw.reason ?? null,
		standardFields: fieldsByName(contact?.standard_fields),
		customFields: fieldsByName(contact?.custom_fields),
	};
}
