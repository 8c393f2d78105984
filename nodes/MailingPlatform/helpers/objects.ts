import type { IDataObject } from 'n8n-workflow';

/** Whether `value` is a plain object (not null, not an array), as parsed XML and JSON give them. */
export function isPlainObject(value: unknown): value is IDataObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
