import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { InputProblem } from '../../helpers/input';

/**
 * Readers for parameter values that may come from expressions: an expression can give a
 * string where the field holds a number or boolean, so typed and computed values go through
 * the same checks. Problems are `InputProblem`s naming the field; `runPerItem` adds the item.
 */

/** An integer within `min`..`max`, given as a number or as digits ("12" is fine, "12a" is not). */
export function readInteger(value: unknown, field: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
	const text = typeof value === 'string' ? value.trim() : value;
	const number =
		typeof text === 'number' ? text : typeof text === 'string' && /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
	const range = max === Number.MAX_SAFE_INTEGER ? `a whole number of at least ${min}` : `a whole number from ${min} to ${max}`;
	if (text === undefined || text === null || text === '') throw new InputProblem(`${field} is empty`, `Enter ${range} in ${field}.`);
	if (!Number.isSafeInteger(number)) {
		throw new InputProblem(`${field} must be ${range}, not ${JSON.stringify(value) ?? String(value)}`, `Enter ${range} in ${field}.`);
	}
	if (number < min || number > max) {
		throw new InputProblem(`${field} must be ${range}, not ${number}`, `Enter ${range} in ${field}.`);
	}
	return number;
}

/** A boolean, or the strings "true"/"false" an expression may give. */
export function readBoolean(value: unknown, field: string): boolean {
	if (typeof value === 'boolean') return value;
	const text = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
	if (text === 'true' || text === 'false') return text === 'true';
	throw new InputProblem(`${field} must be true or false, not ${JSON.stringify(value) ?? String(value)}`, `Set ${field} to true or false.`);
}

/** One of `allowed`, compared as text. */
export function readChoice<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
	const text = typeof value === 'string' ? value.trim() : String(value);
	const choice = allowed.find((candidate) => candidate === text);
	if (choice === undefined) {
		throw new InputProblem(
			`${field} must be one of ${allowed.map((candidate) => `"${candidate}"`).join(', ')}, not ${JSON.stringify(value) ?? String(value)}`,
			`Choose a value offered in ${field}.`,
		);
	}
	return choice;
}

export const mailingIdProperty: INodeProperties = {
	displayName: 'Mailing ID',
	name: 'mailingId',
	type: 'number',
	// Empty until the user enters one: a 0 default was shown as 1 (the field's minimum) but sent as 0.
	default: null,
	required: true,
	typeOptions: { minValue: 1, numberPrecision: 0 },
	description: 'ID of the mailing in the platform, a positive whole number',
};

export function readMailingId(this: IExecuteFunctions, itemIndex: number): number {
	return readInteger(this.getNodeParameter('mailingId', itemIndex), 'Mailing ID', 1);
}
