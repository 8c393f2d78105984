/** Types of the generic order type's content keys, checked and converted before anything is sent. */
import { DateTime } from 'luxon';

import { parseDateTime } from '../../helpers/parameters';
import type { GenericOrderFormat } from './genericOrder';
import { GENERIC_ORDER_GROUPS, GENERIC_ORDER_KEYS } from './genericOrder';
import { isPlainObject } from '../../helpers/objects';

/** A refusal says what is wrong (naming the key and the value) and, in `hint`, how to fix it. */
type Refusal = { ok: false; problem: string; hint: string };
type Checked = { ok: true; value: unknown } | Refusal;

/** Plain decimal text: "59.90", "-1", ".5". Not "1,234.50", "12,5", "1e3" or "0x10". */
const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function describe(value: unknown): string {
	if (typeof value === 'string') return `the text ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}`;
	if (typeof value === 'number') return `the number ${value}`;
	if (Array.isArray(value)) return 'a list';
	if (isPlainObject(value)) return 'an object';
	return String(value);
}

const refused = (problem: string, hint: string): Refusal => ({ ok: false, problem, hint });
const convertHint = (converted: string, wanted: string) =>
	`Turn on Attempt To Convert Types to send it as ${converted}, or give ${wanted}.`;
const LIST_HINT = 'Map a list such as [{"title": "Mug", "quantity": 1}], e.g. with an expression over the order’s line items.';

function checkFloat(key: string, value: unknown, convert: boolean): Checked {
	if (typeof value === 'number') {
		if (Number.isFinite(value)) return { ok: true, value };
		return refused(`${key} must be a finite number, not ${value}`, 'Check the expression that computes it.');
	}
	if (typeof value === 'string' && DECIMAL_TEXT.test(value.trim())) {
		const number = Number(value.trim());
		if (convert) return { ok: true, value: number };
		return refused(`${key} must be a number, not ${describe(value)}`, convertHint(String(number), 'a number'));
	}
	const hint =
		typeof value === 'string'
			? 'Write numbers with a decimal point and without thousands separators, e.g. 1234.5.'
			: 'Map a number, or decimal text such as "59.90".';
	return refused(`${key} must be a number, not ${describe(value)}`, hint);
}

function checkText(key: string, value: unknown, convert: boolean): Checked {
	if (typeof value === 'string') return { ok: true, value };
	if (typeof value === 'number' || typeof value === 'boolean') {
		if (convert) return { ok: true, value: String(value) };
		return refused(`${key} must be text, not ${describe(value)}`, convertHint(`"${String(value)}"`, 'text'));
	}
	return refused(`${key} must be text, not ${describe(value)}`, 'Map a single text value, e.g. one field of the object.');
}

/**
 * Text is sent as given, so its zone (or lack of one) stays the user's; instants go out with
 * their offset. Unlike a date-time parameter, a number is refused: shop data gives epoch seconds
 * as often as milliseconds.
 */
function checkTimestamp(key: string, value: unknown): Checked {
	const instant = parseDateTime(value, 'UTC');
	if (instant === undefined) {
		return refused(
			`${key} must be a date-time, not ${describe(value)}`,
			'Use ISO 8601 such as 2026-11-20T14:03:00+01:00, or YYYY-MM-DD HH:MM:SS.',
		);
	}
	if (typeof value === 'string') return { ok: true, value };
	return { ok: true, value: (DateTime.isDateTime(value) ? value : instant).toISO() };
}

function checkJson(key: string, value: unknown): Checked {
	let list = value;
	if (typeof value === 'string') {
		try {
			list = JSON.parse(value);
		} catch {
			return refused(`${key} must be a list of objects, but ${describe(value)} is not valid JSON`, LIST_HINT);
		}
	}
	if (!Array.isArray(list)) {
		return refused(`${key} must be a list of objects, not ${describe(list)}`, LIST_HINT);
	}
	const wrong = list.findIndex((entry) => !isPlainObject(entry));
	if (wrong !== -1) return refused(`${key} must be a list of objects, but entry ${wrong + 1} is ${describe(list[wrong])}`, LIST_HINT);
	return { ok: true, value: list };
}

function checkValue(key: string, format: GenericOrderFormat, value: unknown, convert: boolean): Checked {
	if (value === null || value === undefined) return { ok: true, value };
	if (format === 'float') return checkFloat(key, value, convert);
	if (format === 'text') return checkText(key, value, convert);
	if (format === 'timestamp') return checkTimestamp(key, value);
	return checkJson(key, value);
}

export type CheckedContent = { ok: true; content: Record<string, unknown> } | Refusal;

/**
 * The content with each known key of the generic order type checked against its format, flat
 * (`order.total`) or grouped (`order: { total }`) alike. With `convert`, decimal text becomes a
 * number and numbers become text where the key wants it. Unknown keys pass unchanged; the
 * content given is never modified.
 */
export function checkGenericOrderContent(content: Record<string, unknown>, convert: boolean, prefix = ''): CheckedContent {
	let result = content;
	for (const [name, value] of Object.entries(content)) {
		const key = prefix === '' ? name : `${prefix}.${name}`;
		const format = GENERIC_ORDER_KEYS.get(key);
		let checked: Checked = { ok: true, value };
		if (format !== undefined) {
			checked = checkValue(key, format, value, convert);
		} else if (isPlainObject(value) && GENERIC_ORDER_GROUPS.has(key)) {
			const group = checkGenericOrderContent(value, convert, key);
			checked = group.ok ? { ok: true, value: group.content } : group;
		}
		if (!checked.ok) return checked;
		if (checked.value !== value) {
			if (result === content) result = { ...content };
			result[name] = checked.value;
		}
	}
	return { ok: true, content: result };
}

/** A key's value in content or an item, given flat (`order.total`) or grouped at any dot. */
export function valueAt(source: Record<string, unknown>, key: string): unknown {
	if (key in source) return source[key];
	const parts = key.split('.');
	for (let split = 1; split < parts.length; split++) {
		const group = source[parts.slice(0, split).join('.')];
		if (isPlainObject(group)) {
			const value = valueAt(group, parts.slice(split).join('.'));
			if (value !== undefined) return value;
		}
	}
	return undefined;
}
