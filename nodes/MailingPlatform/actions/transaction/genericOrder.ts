import type { FieldType, ILoadOptionsFunctions, ResourceMapperField, ResourceMapperFields } from 'n8n-workflow';

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
export const GENERIC_ORDER_GROUPS: ReadonlySet<string> = new Set(
	[...GENERIC_ORDER_KEYS.keys()].flatMap((key) => {
		const parts = key.split('.');
		return parts.slice(1).map((_, index) => parts.slice(0, index + 1).join('.'));
	}),
);

const FIELD_TYPES: Record<GenericOrderFormat, FieldType> = {
	text: 'string',
	float: 'number',
	timestamp: 'dateTime',
	json: 'array',
};

/** The resource mapper's fields: the generic order type's keys, fixed by the API spec. */
export const GENERIC_ORDER_FIELDS: ResourceMapperField[] = [...GENERIC_ORDER_KEYS].map(([key, format]) => ({
	id: key,
	displayName: key,
	type: FIELD_TYPES[format],
	required: false,
	defaultMatch: false,
	canBeUsedToMatch: false,
	display: true,
}));

export async function getGenericOrderFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	return { fields: GENERIC_ORDER_FIELDS };
}
