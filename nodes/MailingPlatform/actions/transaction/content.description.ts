import type { INodeProperties } from 'n8n-workflow';

const CONTENT_EXAMPLE = JSON.stringify({
	'order.id': 'A-1001',
	'order.currency': 'EUR',
	'order.total': 59.9,
	'order.items': [{ title: 'Mug', quantity: 2, price: 12.5 }],
	billing: { fullname: 'Anna Example', 'address.line1': 'Main Street 1' },
});

/** The transaction's content in Fields input mode: the Content JSON, or fields mapped onto the generic order type. */
export const contentProperties: INodeProperties[] = [
	{
		displayName: 'Content Mode',
		name: 'contentMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'JSON', value: 'json', description: 'Write the content as one JSON object' },
			{
				name: 'Map Generic Order Fields',
				value: 'mapped',
				description: 'Map input fields to the keys of the generic order type, with their types checked',
			},
		],
		default: 'json',
	},
	{
		displayName: 'Content',
		name: 'content',
		type: 'json',
		default: '{}',
		displayOptions: { show: { contentMode: ['json'] } },
		hint: `Generic order example: ${CONTENT_EXAMPLE}`,
		description: 'Transaction content as a JSON object, with flat dotted keys or grouped objects; numbers must be numbers. Content Mode › Map Generic Order Fields lists every key of the generic order type.',
	},
	{
		displayName: 'Content Fields',
		name: 'contentFields',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null, attemptToConvertTypes: true, convertFieldsToString: true },
		required: true,
		displayOptions: { show: { contentMode: ['mapped'] } },
		typeOptions: {
			resourceMapper: {
				resourceMapperMethod: 'getGenericOrderFields',
				mode: 'add',
				fieldWords: { singular: 'key', plural: 'keys' },
				addAllFields: false,
				supportAutoMap: true,
				showTypeConversionOptions: true,
			},
		},
		description:
			'Keys of the generic order type with their types from the API spec, sent as flat dotted keys. Empty fields are left out.',
	},
	{
		displayName: 'Extra Content Fields',
		name: 'extraContentFields',
		type: 'fixedCollection',
		placeholder: 'Add Extra Field',
		typeOptions: { multipleValues: true },
		default: {},
		displayOptions: { show: { contentMode: ['mapped'] } },
		description: 'Custom attributes or other keys of your transaction type, sent unchanged. Empty values are left out.',
		options: [
			{
				displayName: 'Field',
				name: 'field',
				values: [
					{
						displayName: 'Key',
						name: 'key',
						type: 'string',
						default: '',
						placeholder: 'e.g. generic_fields.number1',
					},
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						default: '',
					},
				],
			},
		],
	},
];
