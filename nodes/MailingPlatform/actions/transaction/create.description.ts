import type { INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { contentProperties } from './content.description';

/** The spec's limit of one request body. */
export const SPEC_MAX_REQUEST_BYTES = 9_000_000;
export const DEFAULT_HISTORY_SIZE = 10_000;
/**
 * n8n's store reads and rewrites a node's whole history on every call, so every keyed execution
 * pays for its size: the bound keeps a slip of the keyboard from making each one crawl.
 */
export const MAX_HISTORY_SIZE = 1_000_000;
/** How long a transaction may wait for its account's requests by default; docs/running-at-scale.md says why. */
export const DEFAULT_MAX_WAIT_SECONDS = 120;
export const MAX_WAIT_SECONDS = 3600;

const inFieldsMode = (properties: INodeProperties[]): INodeProperties[] =>
	properties.map((property) => ({
		...property,
		displayOptions: { ...property.displayOptions, show: { ...property.displayOptions?.show, inputMode: ['fields'] } },
	}));

export const description: INodeProperties[] = showFor('transaction', 'create', [
	{
		displayName:
			'Dry Run is on: every item is checked and packed as in a real run, but nothing is sent and no key is recorded. Turn it off in Options to send.',
		name: 'dryRunNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { '/options.dryRun': [true] } },
	},
	{
		displayName: 'Input Mode',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Fields', value: 'fields', description: 'Build each transaction from the fields below' },
			{ name: 'JSON', value: 'json', description: 'Each item (or the Transaction JSON expression) is one transaction in the API’s own shape' },
		],
		default: 'fields',
	},
	{
		displayName: 'Transaction JSON',
		name: 'transactionJson',
		type: 'json',
		default: '={{ $json }}',
		displayOptions: { show: { inputMode: ['json'] } },
		description:
			'One transaction as the API expects it, e.g. {"type": 1, "contact": {"email": "anna@example.com"}, "content": {"order.total": 59.9}}',
	},
	...inFieldsMode([
		{
			displayName: 'Transaction Type By',
			name: 'typeBy',
			type: 'options',
			options: [
				{ name: 'ID', value: 'id' },
				{ name: 'Name', value: 'name', description: 'Stays valid when the type’s ID changes' },
			],
			default: 'id',
		},
		{
			displayName: 'Transaction Type ID',
			name: 'typeId',
			type: 'number',
			default: 0,
			required: true,
			typeOptions: { minValue: 0 },
			displayOptions: { show: { typeBy: ['id'] } },
			description: 'Numeric ID of the transaction type, as shown in the platform',
		},
		{
			displayName:
				'Set the Transaction Type ID: 0 is no type, and every item would be refused. Find the ID in the platform, or choose the type by name.',
			name: 'typeIdNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { typeBy: ['id'], typeId: [0] } },
		},
		{
			displayName: 'Transaction Type Name',
			name: 'typeName',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. generic order',
			displayOptions: { show: { typeBy: ['name'] } },
		},
		{
			displayName: 'Contact Mode',
			name: 'contactMode',
			type: 'options',
			options: [
				{ name: 'Existing Contact', value: 'existing', description: 'The contact must exist already' },
				{
					name: 'Create If Missing',
					value: 'import',
					description: 'Creates a missing contact with its e-mail (and external ID) and the given permission',
				},
			],
			default: 'existing',
		},
		{
			displayName: 'Contact E-Mail',
			name: 'contactEmail',
			type: 'string',
			placeholder: 'name@email.com',
			default: '',
			description: 'The contact’s e-mail address; give it, the external ID or the contact ID (at least one). Creating a missing contact needs the e-mail.',
		},
		{
			displayName: 'Contact External ID',
			name: 'contactExternalId',
			type: 'string',
			default: '',
			description: 'Your own ID of the contact, e.g. the shop’s customer ID. Left out when empty.',
		},
		{
			displayName: 'Contact ID',
			name: 'contactId',
			// Text, so that an unset ID shows empty rather than as 0; the value is sent as a number.
			type: 'string',
			default: '',
			placeholder: 'e.g. 1001',
			description: 'The platform’s numeric ID of the contact. Left out when empty.',
		},
		{
			displayName: 'Permission',
			name: 'permission',
			type: 'options',
			options: [2, 3, 4, 5, 6].map((value) => ({ name: String(value), value })),
			default: 2,
			displayOptions: { show: { contactMode: ['import'] } },
			description:
				'Permission a newly created contact gets: 2 to 6, with the meanings your platform account gives them (the API does not name them). 1 (none) is not offered, since no mail may be sent to such a contact.',
		},
		...contentProperties,
	]),
	{
		displayName:
			'Transactions the service does not queue come out with <code>queued: false</code> and the reason in <code>message</code>: branch on <code>queued</code>, <code>skipped</code> and <code>outcomeUnknown</code>. With a Deduplication Key, orders not sent fail the execution after the others went, so that its retry sends just them: keep Settings › On Error at “Stop Workflow”.',
		name: 'notQueuedNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Attachment Binary Properties',
				name: 'attachmentBinaryProperties',
				type: 'string',
				default: '',
				placeholder: 'e.g. invoice, terms',
				description:
					'Comma-separated binary properties of the item to attach. At most 1,000,000 bytes per transaction; executable files are refused.',
			},
			{
				displayName: 'Deduplication History Size',
				name: 'deduplicationHistorySize',
				type: 'number',
				default: DEFAULT_HISTORY_SIZE,
				typeOptions: { minValue: 1, maxValue: MAX_HISTORY_SIZE, numberPrecision: 0 },
				description:
					'How many keys this node remembers, the oldest forgotten first: keep it above the number of orders a shop may still deliver again. An execution with more different keys than this refuses every item.',
			},
			{
				displayName: 'Deduplication Key',
				name: 'deduplicationKey',
				type: 'string',
				default: '',
				placeholder: 'e.g. the order number',
				// The README's expression, word for word: n8n's scanner reads a placeholder's or description's field names as prose.
				hint: 'Behind n8n’s Webhook node: {{ $json.body.id }}',
				description:
					'The order’s ID: a transaction whose key this node sent, or may have sent, comes out skipped (queue mode: see the README). Orders not sent fail the execution so that its retry sends them; under On Error › Continue they say notSentYet: true.',
			},
			{
				displayName: 'Dry Run',
				name: 'dryRun',
				type: 'boolean',
				default: false,
				description:
					'Whether to check and pack every item as a real run would, then send nothing; the Deduplication Key’s history is neither read nor written. Each item shows its transaction and the request it would go in.',
			},
			{
				displayName: 'Ignore Invalid Transactions',
				name: 'ignoreInvalidTransactions',
				type: 'boolean',
				default: true,
				description:
					'Whether the service queues the valid transactions of a request and reports the invalid ones. When off, one invalid transaction fails its whole request.',
			},
			{
				displayName: 'Max Request Bytes',
				name: 'maxRequestBytes',
				type: 'number',
				default: SPEC_MAX_REQUEST_BYTES,
				typeOptions: { minValue: 1024, maxValue: SPEC_MAX_REQUEST_BYTES },
				description:
					'Largest body of one request in bytes. After a 413 (too large) the node halves the limit itself for as long as n8n runs; set this only to spare that first refused request.',
			},
			{
				displayName: 'Max Wait Seconds',
				name: 'maxWaitSeconds',
				type: 'number',
				default: DEFAULT_MAX_WAIT_SECONDS,
				typeOptions: { minValue: 1, maxValue: MAX_WAIT_SECONDS, numberPrecision: 0 },
				description:
					'How long an execution’s transactions may wait while the account’s requests take none of them (its own requests’ time not counted). Past it, or 5 s before n8n’s workflow timeout (Timeout Workflow, counted from the execution’s start), what has not left fails as not sent, which a retry of the execution sends.',
			},
			{
				displayName: 'Validate Generic Order Content',
				name: 'validateGenericOrderContent',
				type: 'boolean',
				default: false,
				description:
					'Whether to check content given as JSON against the generic order type before sending: numeric text such as "59.90" becomes a number, and an item whose value cannot take its key’s type (e.g. "12,5" for order.tax_rate) is refused. Mapped fields are always checked.',
			},
		],
	},
]);
