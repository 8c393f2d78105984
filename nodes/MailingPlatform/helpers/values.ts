/** What a value is, for reading what the user and the service give, and how bad input is refused. */
import type { IDataObject } from 'n8n-workflow';

/**
 * Why the node does not send an item, and how to fix it: a field's bad input, mostly found before
 * anything is sent, but also a transaction the packer cannot carry (not JSON, or larger alone than
 * a request may be), found while other items' requests go out, and Deduplication Keys that n8n's
 * store could not check. `itemError` (helpers/itemResults) makes it the item's n8n error.
 */
export class InputProblem extends Error {
	constructor(
		message: string,
		readonly hint: string,
	) {
		super(message);
	}
}

/** Whether a parameter or field was left empty: absent, null or only blanks. */
export function isEmpty(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** Whether `value` is a plain object (not null, not an array), as parsed XML and JSON give them. */
export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A comma-separated parameter as a list: `a, b,,c ` -> `['a', 'b', 'c']`. */
export function splitList(value: unknown): string[] {
	if (Array.isArray(value)) return value.map((entry) => String(entry).trim()).filter((entry) => entry !== '');
	if (value === undefined || value === null) return [];
	return String(value)
		.split(',')
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');
}
