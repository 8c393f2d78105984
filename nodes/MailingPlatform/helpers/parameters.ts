import { DateTime } from 'luxon';
import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { thousands } from './numbers';
import { InputProblem, isEmpty, isPlainObject } from './values';

/**
 * Reading the node's parameters: only this module, the router and the trigger call
 * `getNodeParameter`. An expression can give text where a field holds a number, a boolean or a
 * date, so typed and computed values go through the same checks; a refusal is an `InputProblem`
 * naming the field, and the caller adds the item.
 */

type Reader<T> = (itemIndex: number) => T;

/** A parameter of one item, as n8n evaluates it. */
export function parameter<T>(context: IExecuteFunctions, name: string, itemIndex: number, fallback: T): T {
	return context.getNodeParameter(name, itemIndex, fallback) as T;
}

/**
 * `={{ $json }}`, `={{ $json.order.id }}` or `={{ $json.content["order.id"] }}` and nothing around
 * it: n8n gives the item, or the field, itself (text around it would make the result text).
 */
const ITEM_FIELD = /^=\{\{\s*\$json((?:\.[A-Za-z_$][\w$]*|\[\s*"[^"\\]*"\s*\]|\[\s*'[^'\\]*'\s*\])*)\s*\}\}$/;
const FIELD_STEP = /\.([A-Za-z_$][\w$]*)|\[\s*"([^"]*)"\s*\]|\[\s*'([^']*)'\s*\]/g;

function fieldAt(json: unknown, path: readonly string[]): unknown {
	let value = json;
	for (const key of path) value = isPlainObject(value) ? value[key] : undefined;
	return value;
}

const nodes = new WeakMap<IExecuteFunctions, INode>();

/** The node of a node run, read once: n8n's `getNode()` copies the node with all its parameters at every call. */
export function nodeOf(context: IExecuteFunctions): INode {
	let node = nodes.get(context);
	if (node === undefined) nodes.set(context, (node = context.getNode()));
	return node;
}

/** The value as the workflow stores it (an expression unevaluated), or undefined when the parameter is not set. */
function storedValue(context: IExecuteFunctions, name: string): unknown {
	let value: unknown = nodeOf(context).parameters;
	for (const key of name.split('.')) value = isPlainObject(value) ? value[key] : undefined;
	return value;
}

/** Whether an optional parameter, such as an option of a collection, is set; nothing is evaluated. */
export function isSet(context: IExecuteFunctions, name: string): boolean {
	return storedValue(context, name) !== undefined;
}

function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	return isPlainObject(value) && Object.values(value).some(holdsExpression);
}

/**
 * A parameter for every item of a node that reads all items at once: read once when it is a
 * fixed value, per item only when it holds an expression (anywhere inside, as in a resource
 * mapper's values), and taken from the item without evaluating anything when it is one of the
 * item field paths above, which tests hold to n8n's own result: n8n's engine is slow per
 * evaluation (docs/benchmarks.md), so 100,000 items then cost one read, or none.
 */
export function readerFor<T>(context: IExecuteFunctions, name: string, fallback: T): Reader<T> {
	const raw = storedValue(context, name) ?? fallback;
	const field = typeof raw === 'string' ? ITEM_FIELD.exec(raw) : null;
	if (field !== null) {
		const items = context.getInputData();
		const path = [...field[1].matchAll(FIELD_STEP)].map((step) => step[1] ?? step[2] ?? step[3]);
		return (itemIndex) => fieldAt(items[itemIndex].json, path) as T;
	}
	if (holdsExpression(raw)) return (itemIndex) => parameter(context, name, itemIndex, fallback);
	const value = parameter(context, name, 0, fallback);
	return () => value;
}

const shown = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** An object given as such or as JSON text; anything else is refused naming `label`. */
export function parseJsonObject(value: unknown, label: string): Record<string, unknown> {
	if (isPlainObject(value)) return value;
	const hint = `Give ${label} as one JSON object, e.g. {"order.id": "A-1001", "order.total": 59.9}.`;
	let parsed = value;
	let syntaxError: string | undefined;
	if (typeof value === 'string') {
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			syntaxError = (error as Error).message;
		}
	}
	if (syntaxError !== undefined) throw new InputProblem(`${label} is not valid JSON: ${syntaxError}`, hint);
	if (!isPlainObject(parsed)) throw new InputProblem(`${label} must be a JSON object`, hint);
	return parsed;
}

function rangeText(min: number, max: number): string {
	if (min <= Number.MIN_SAFE_INTEGER && max >= Number.MAX_SAFE_INTEGER) return 'a whole number';
	if (max >= Number.MAX_SAFE_INTEGER) return `a whole number of at least ${thousands(min)}`;
	return `a whole number from ${thousands(min)} to ${thousands(max)}`;
}

/** An integer within `min`..`max`, given as a number or as digits ("12" is fine, "12a" is not). */
export function readInteger(value: unknown, field: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER, hint?: string): number {
	const text = typeof value === 'string' ? value.trim() : value;
	const number = typeof text === 'number' ? text : typeof text === 'string' && /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
	if (Number.isSafeInteger(number) && number >= min && number <= max) return number;
	const range = rangeText(min, max);
	const fix = hint ?? `Enter ${range} in ${field}.`;
	if (isEmpty(text)) throw new InputProblem(`${field} is empty`, fix);
	if (!Number.isSafeInteger(number)) throw new InputProblem(`${field} must be ${range}, not ${shown(value)}`, fix);
	throw new InputProblem(`${field} must be ${range}, not ${thousands(number)}`, fix);
}

/** `readInteger`, or undefined when the field is empty or holds `none` (a number field's unset 0). */
export function readOptionalInteger(value: unknown, field: string, none: number | undefined, min?: number, max?: number, hint?: string): number | undefined {
	if (isEmpty(value)) return undefined;
	const number = readInteger(value, field, min, max, hint);
	return number === none ? undefined : number;
}

/** A boolean, or the strings "true"/"false" an expression may give. */
export function readBoolean(value: unknown, field: string): boolean {
	if (typeof value === 'boolean') return value;
	const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
	if (text === 'true' || text === 'false') return text === 'true';
	throw new InputProblem(`${field} must be true or false, not ${shown(value)}`, `Set ${field} to true or false.`);
}

/** One of `allowed`, compared as text. */
export function readChoice<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
	const text = typeof value === 'string' ? value.trim() : String(value);
	const choice = allowed.find((candidate) => candidate === text);
	if (choice === undefined) {
		throw new InputProblem(
			`${field} must be one of ${allowed.map((candidate) => `"${candidate}"`).join(', ')}, not ${shown(value)}`,
			`Choose a value offered in ${field}.`,
		);
	}
	return choice;
}

/**
 * A date-time as the picker or an expression gives it: ISO 8601 text with or without an offset
 * (`2030-05-17T09:30`, `2030-05-17T07:30:00Z`), the SQL form (`2030-05-17 09:30:00`), a Luxon
 * DateTime or a JS Date. Text without an offset is wall-clock time in `timeZone`; the result is
 * in `timeZone`. Undefined for anything else, and for dates that do not exist (February 30).
 */
export function parseDateTime(value: unknown, timeZone: string): DateTime | undefined {
	let parsed: DateTime | undefined;
	if (DateTime.isDateTime(value)) parsed = value.setZone(timeZone);
	// Not instanceof: a Date made in another realm (VM context) is a Date too.
	else if (Object.prototype.toString.call(value) === '[object Date]') {
		parsed = DateTime.fromJSDate(value as Date, { zone: timeZone });
	} else if (typeof value === 'string' && value.trim() !== '') {
		const text = value.trim();
		parsed = DateTime.fromISO(text, { zone: timeZone });
		if (!parsed.isValid) parsed = DateTime.fromSQL(text, { zone: timeZone });
	}
	return parsed?.isValid ? parsed : undefined;
}

/**
 * A date-time parameter: whatever `parseDateTime` reads, or milliseconds since the epoch (a
 * number, as `{{ $now.toMillis() }}` gives). Text without an offset is wall-clock time in the
 * workflow's zone; the result is in that zone.
 */
export function readDateTime(value: unknown, field: string, workflowTimeZone: string): DateTime {
	if (isEmpty(value)) throw new InputProblem(`${field} is empty`, `Pick a date and time in ${field}.`);
	const parsed =
		typeof value === 'number' ? DateTime.fromMillis(value, { zone: workflowTimeZone }) : parseDateTime(value, workflowTimeZone);
	if (parsed === undefined || !parsed.isValid) {
		throw new InputProblem(
			`${field} is not a date-time: ${typeof value === 'number' ? value : shown(value)}`,
			`Use the date picker, or an ISO 8601 value such as 2030-05-17T09:30 (read in the workflow's timezone, ${workflowTimeZone}) or 2030-05-17T09:30:00+02:00.`,
		);
	}
	return parsed;
}
