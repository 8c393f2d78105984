/**
 * A transaction's content: the Content JSON, or fields mapped to the generic order type of the
 * API spec, whose keys and formats are here, with the checks of their values.
 */
import { DateTime } from 'luxon';
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { InputProblem, isEmpty, isPlainObject } from '../../helpers/values';
import { parseDateTime, parseJsonObject, readerFor } from '../../helpers/parameters';

/** The formats the API spec gives the generic order type's content keys. */
export type GenericOrderFormat = 'text' | 'float' | 'timestamp' | 'json';

const numbered = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}${index + 1}`);

const KEYS_BY_FORMAT: Array<[GenericOrderFormat, string[]]> = [
	['text', ['order.id']],
	['timestamp', ['order.date']],
	['text', ['order.date_formatted', 'order.currency', 'order.url']],
	['json', ['order.items', 'order.attachments']],
	['float', ['order.subtotal', 'order.shipping_fee', 'order.tax_rate', 'order.tax_amount', 'order.credit', 'order.total']],
	[
		'text',
		[
			'billing.fullname',
			...numbered('billing.address.line', 5),
			'billing.contact1',
			'billing.contact2',
			'billing.method.type',
			...numbered('billing.method.detail', 5),
		],
	],
	['timestamp', ['billing.due_date']],
	['text', ['billing.due_date_formatted', 'shipping.fullname', ...numbered('shipping.address.line', 5)]],
	['text', ['shipping.contact1', 'shipping.contact2', 'shipping.method', 'shipping.tracking_code', 'shipping.tracking_url']],
	['timestamp', ['shipping.delivery_date.earliest', 'shipping.delivery_date.latest']],
	['text', ['shipping.delivery_date.earliest_formatted', 'shipping.delivery_date.latest_formatted']],
	['text', ['customer.salutation', 'customer.full_name', 'customer.id', ...numbered('generic_fields.string', 10)]],
];

/** Every content key of the generic order type with its format, in the order the panel offers them. */
export const GENERIC_ORDER_KEYS: ReadonlyMap<string, GenericOrderFormat> = new Map(
	KEYS_BY_FORMAT.flatMap(([format, keys]) => keys.map((key) => [key, format] as const)),
);

/** Prefixes under which known keys may be grouped (`billing`, `billing.address`, ...). */
const GENERIC_ORDER_GROUPS: ReadonlySet<string> = new Set(
	[...GENERIC_ORDER_KEYS.keys()].flatMap((key) => {
		const parts = key.split('.');
		return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join('.'));
	}),
);

/** Plain decimal text: "59.90", "-1", ".5". Not "1,234.50", "12,5", "1e3" or "0x10". */
const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function describe(value: unknown): string {
	if (typeof value === 'string') return `the text ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}`;
	if (typeof value === 'number') return `the number ${value}`;
	if (Array.isArray(value)) return 'a list';
	if (isPlainObject(value)) return 'an object';
	return String(value);
}

const convertHint = (converted: string, wanted: string) => `Turn on Attempt To Convert Types to send it as ${converted}, or give ${wanted}.`;
const LIST_HINT = 'Map a list such as [{"title": "Mug", "quantity": 1}], e.g. with an expression over the order’s line items.';

function float(key: string, value: unknown, convert: boolean): number {
	if (typeof value === 'number') {
		if (Number.isFinite(value)) return value;
		throw new InputProblem(`${key} must be a finite number, not ${value}`, 'Check the expression that computes it.');
	}
	if (typeof value === 'string' && DECIMAL_TEXT.test(value.trim())) {
		const number = Number(value.trim());
		if (convert) return number;
		throw new InputProblem(`${key} must be a number, not ${describe(value)}`, convertHint(String(number), 'a number'));
	}
	const hint =
		typeof value === 'string'
			? 'Write numbers with a decimal point and without thousands separators, e.g. 1234.5.'
			: 'Map a number, or decimal text such as "59.90".';
	throw new InputProblem(`${key} must be a number, not ${describe(value)}`, hint);
}

function text(key: string, value: unknown, convert: boolean): string {
	if (typeof value === 'string') return value;
	if ((typeof value === 'number' || typeof value === 'boolean') && convert) return String(value);
	const hint = typeof value === 'number' || typeof value === 'boolean' ? convertHint(`"${String(value)}"`, 'text') : 'Map a single text value, e.g. one field of the object.';
	throw new InputProblem(`${key} must be text, not ${describe(value)}`, hint);
}

/**
 * Text is sent as given, so its zone (or lack of one) stays the user's; instants go out with
 * their offset. Unlike a date-time parameter, a number is refused: shop data gives epoch seconds
 * as often as milliseconds.
 */
function timestamp(key: string, value: unknown): unknown {
	const instant = parseDateTime(value, 'UTC');
	if (instant === undefined) {
		throw new InputProblem(`${key} must be a date-time, not ${describe(value)}`, 'Use ISO 8601 such as 2026-11-20T14:03:00+01:00, or YYYY-MM-DD HH:MM:SS.');
	}
	return typeof value === 'string' ? value : (DateTime.isDateTime(value) ? value : instant).toISO();
}

/** The value of JSON text; undefined, which JSON cannot hold, when the text is not JSON. */
function parsedJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

function listOfObjects(key: string, value: unknown): unknown[] {
	const list = typeof value === 'string' ? parsedJson(value) : value;
	if (list === undefined) throw new InputProblem(`${key} must be a list of objects, but ${describe(value)} is not valid JSON`, LIST_HINT);
	if (!Array.isArray(list)) throw new InputProblem(`${key} must be a list of objects, not ${describe(list)}`, LIST_HINT);
	const wrong = list.findIndex((entry) => !isPlainObject(entry));
	if (wrong !== -1) throw new InputProblem(`${key} must be a list of objects, but entry ${wrong + 1} is ${describe(list[wrong])}`, LIST_HINT);
	return list;
}

function checkedValue(key: string, format: GenericOrderFormat, value: unknown, convert: boolean): unknown {
	if (value === null || value === undefined) return value;
	if (format === 'float') return float(key, value, convert);
	if (format === 'text') return text(key, value, convert);
	if (format === 'timestamp') return timestamp(key, value);
	return listOfObjects(key, value);
}

function checkedGroup(content: Record<string, unknown>, convert: boolean, label: string, prefix: string): Record<string, unknown> {
	let result = content;
	for (const [name, value] of Object.entries(content)) {
		const key = prefix === '' ? name : `${prefix}.${name}`;
		const format = GENERIC_ORDER_KEYS.get(key);
		let checked = value;
		if (format !== undefined) checked = checkedValue(`${label}: ${key}`, format, value, convert);
		else if (isPlainObject(value) && GENERIC_ORDER_GROUPS.has(key)) checked = checkedGroup(value, convert, label, key);
		if (checked !== value) {
			if (result === content) result = { ...content };
			result[name] = checked;
		}
	}
	return result;
}

/**
 * The content with each known key of the generic order type checked against its format, flat
 * (`order.total`) or grouped (`order: { total }`) alike; a refusal names `label` and the key. With
 * `convert`, decimal text becomes a number and numbers become text where the key wants it. Unknown
 * keys pass unchanged; the content given is never modified.
 */
export function checkedGenericOrderContent(content: Record<string, unknown>, convert: boolean, label: string): Record<string, unknown> {
	return checkedGroup(content, convert, label, '');
}

/** A key's value in content or an item, given flat (`order.total`) or grouped at any dot. */
function valueAt(source: Record<string, unknown>, key: string): unknown {
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

/** What n8n stores for a resource mapper parameter, as far as content needs it. */
interface MappedFields {
	mappingMode?: string;
	value?: IDataObject | null;
	attemptToConvertTypes?: boolean;
}

interface ExtraFields {
	field?: Array<{ key?: string; value?: unknown }>;
}

export const CONTENT_LABEL = 'Content';

/** Mapped values with the empty ones left out: the keys the user gave a value, flat as the spec shows them. */
function mappedValues(fields: MappedFields, item: IDataObject): Record<string, unknown> {
	const content: Record<string, unknown> = {};
	const source = fields.mappingMode === 'autoMapInputData' ? [...GENERIC_ORDER_KEYS.keys()].map((key) => [key, valueAt(item, key)] as const) : Object.entries(fields.value ?? {});
	for (const [key, value] of source) if (!isEmpty(value)) content[key] = value;
	return content;
}

/** The content of one item in Fields input mode: the Content JSON, or the mapped fields checked and converted. */
export function contentReader(context: IExecuteFunctions, validateJson: boolean): (itemIndex: number) => Record<string, unknown> {
	const mode = readerFor(context, 'contentMode', 'json');
	const json = readerFor<unknown>(context, 'content', '{}');
	const mapped = readerFor<MappedFields>(context, 'contentFields', {});
	const extra = readerFor<ExtraFields>(context, 'extraContentFields', {});
	const items = context.getInputData();

	return (itemIndex) => {
		if (mode(itemIndex) !== 'mapped') {
			const content = parseJsonObject(json(itemIndex), CONTENT_LABEL);
			return validateJson ? checkedGenericOrderContent(content, true, CONTENT_LABEL) : content;
		}
		const fields = mapped(itemIndex) ?? {};
		const content = mappedValues(fields, items[itemIndex].json);
		for (const { key, value } of extra(itemIndex)?.field ?? []) {
			const name = String(key ?? '').trim();
			if (name === '') throw new InputProblem('Extra Content Fields: an entry has no key', 'Give the entry a key, or remove it.');
			if (!isEmpty(value)) content[name] = value;
		}
		return checkedGenericOrderContent(content, fields.attemptToConvertTypes !== false, 'Content Fields');
	};
}
