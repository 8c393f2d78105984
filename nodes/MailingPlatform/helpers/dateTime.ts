import { DateTime } from 'luxon';

/**
 * A date-time parameter as n8n hands it over: a picker's text, or a Luxon DateTime or JS Date
 * from an expression. Text without an offset is wall-clock time in `timeZone`; the result is in
 * `timeZone`. Undefined when the value is none of these or no valid date-time.
 */
export function parseDateTime(value: unknown, timeZone: string): DateTime | undefined {
	let parsed: DateTime | undefined;
	if (DateTime.isDateTime(value)) parsed = value.setZone(timeZone);
	else if (Object.prototype.toString.call(value) === '[object Date]') {
		parsed = DateTime.fromJSDate(value as Date, { zone: timeZone });
	} else if (typeof value === 'string' && value.trim() !== '') {
		const text = value.trim();
		parsed = DateTime.fromISO(text, { zone: timeZone });
		if (!parsed.isValid) parsed = DateTime.fromSQL(text, { zone: timeZone });
	}
	return parsed?.isValid ? parsed : undefined;
}
