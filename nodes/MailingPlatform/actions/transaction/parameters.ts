import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { isPlainObject } from './validation';

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

/** Thrown while checking one item; the caller adds the item's index and decides what to do. */
export function refusal(node: INode, message: string): NodeOperationError {
	return new NodeOperationError(node, message);
}

/** An object given as such or as JSON text; anything else is refused naming `label`. */
export function parseJsonObject(node: INode, value: unknown, label: string): Record<string, unknown> {
	let parsed = value;
	if (typeof value === 'string') {
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			throw refusal(node, `${label} is not valid JSON: ${(error as Error).message}`);
		}
	}
	if (!isPlainObject(parsed)) throw refusal(node, `${label} must be a JSON object`);
	return parsed;
}
