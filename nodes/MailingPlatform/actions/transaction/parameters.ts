import type { IExecuteFunctions } from 'n8n-workflow';

import { InputProblem } from '../../helpers/input';
import { isPlainObject } from '../../helpers/objects';

export type Reader<T> = (itemIndex: number) => T;

function holdsExpression(value: unknown): boolean {
	if (typeof value === 'string') return value.startsWith('=');
	if (Array.isArray(value)) return value.some(holdsExpression);
	return isPlainObject(value) && Object.values(value).some(holdsExpression);
}

/**
 * A parameter read once when it is a fixed value, per item only when it holds an expression
 * (anywhere inside, as in a resource mapper's values): 100,000 items read it once, not 100,000 times.
 */
export function readerFor<T>(context: IExecuteFunctions, name: string, fallback: T): Reader<T> {
	let raw: unknown = context.getNode().parameters;
	for (const key of name.split('.')) raw = isPlainObject(raw) ? raw[key] : undefined;
	if (holdsExpression(raw)) {
		return (itemIndex) => context.getNodeParameter(name, itemIndex, fallback) as T;
	}
	const value = context.getNodeParameter(name, 0, fallback) as T;
	return () => value;
}

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
