import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeProperties,
	NodeApiError,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { splitList } from '../../helpers/lists';
import { errorItemJson } from '../../helpers/perItem';
import { apiRequest } from '../../transport';
import { serviceError } from '../../transport/errors';
import { SPEC_MAX_REQUEST_BYTES, arrayBody, arrayBodyBytes, nextBatchEnd, readReport } from './packing';
import type { Attachment, FieldLabels } from './validation';
import { JSON_LABELS, MAX_ATTACHMENT_BYTES, isExecutable, isPlainObject, transactionProblem } from './validation';

const GENERIC_ORDER_KEYS =
	'order.id, order.date, order.date_formatted, order.currency, order.url, order.items (list of objects), ' +
	'order.subtotal, order.shipping_fee, order.tax_rate, order.tax_amount, order.credit, order.total (numbers), ' +
	'billing.fullname, billing.address.line1–5, billing.contact1–2, billing.method.type, billing.method.detail1–5, ' +
	'billing.due_date, shipping.fullname, shipping.address.line1–5, shipping.method, shipping.tracking_code, ' +
	'shipping.tracking_url, shipping.delivery_date.earliest/latest, customer.salutation, customer.full_name, ' +
	'customer.id, generic_fields.string1–10';

const CONTENT_EXAMPLE = JSON.stringify({
	'order.id': 'A-1001',
	'order.currency': 'EUR',
	'order.total': 59.9,
	'order.items': [{ title: 'Mug', quantity: 2, price: 12.5 }],
	billing: { fullname: 'Anna Example', 'address.line1': 'Main Street 1' },
});

export const description: INodeProperties[] = showFor('transaction', 'create', [
	{
		displayName:
			'All input items are sent together in as few requests as possible; each output item tells whether its transaction was queued',
		name: 'batchingNotice',
		type: 'notice',
		default: '',
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
	{
		displayName: 'Transaction Type By',
		name: 'typeBy',
		type: 'options',
		options: [
			{ name: 'ID', value: 'id' },
			{ name: 'Name', value: 'name', description: 'Stays valid when the type’s ID changes' },
		],
		default: 'id',
		displayOptions: { show: { inputMode: ['fields'] } },
	},
	{
		displayName: 'Transaction Type ID',
		name: 'typeId',
		type: 'number',
		default: 0,
		required: true,
		typeOptions: { minValue: 0 },
		displayOptions: { show: { inputMode: ['fields'], typeBy: ['id'] } },
		description: 'Numeric ID of the transaction type, as shown in the platform',
	},
	{
		displayName: 'Transaction Type Name',
		name: 'typeName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. generic order',
		displayOptions: { show: { inputMode: ['fields'], typeBy: ['name'] } },
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
		displayOptions: { show: { inputMode: ['fields'] } },
	},
	{
		displayName: 'Contact E-Mail',
		name: 'contactEmail',
		type: 'string',
		placeholder: 'name@email.com',
		default: '',
		displayOptions: { show: { inputMode: ['fields'] } },
		description: 'Left out when empty. Required to create a missing contact.',
	},
	{
		displayName: 'Contact External ID',
		name: 'contactExternalId',
		type: 'string',
		default: '',
		displayOptions: { show: { inputMode: ['fields'] } },
		description: 'Your own ID of the contact, e.g. the shop’s customer ID. Left out when empty.',
	},
	{
		displayName: 'Contact ID',
		name: 'contactId',
		type: 'number',
		default: 0,
		displayOptions: { show: { inputMode: ['fields'] } },
		description: 'The platform’s ID of the contact. Left out when 0.',
	},
	{
		displayName: 'Permission',
		name: 'permission',
		type: 'number',
		default: 0,
		required: true,
		displayOptions: { show: { inputMode: ['fields'], contactMode: ['import'] } },
		description:
			'Permission (2 to 6) a newly created contact gets. 1 (none) is refused: no mail may be sent to such a contact.',
	},
	{
		displayName: 'Content',
		name: 'content',
		type: 'json',
		default: '{}',
		displayOptions: { show: { inputMode: ['fields'] } },
		hint: `Generic order example: ${CONTENT_EXAMPLE}`,
		description: `Transaction content as a JSON object, with flat dotted keys or grouped objects; numbers must be numbers. Keys of the generic order type: ${GENERIC_ORDER_KEYS}.`,
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
				description: 'Largest body of one request. Lower it only if your account has a lower limit.',
			},
		],
	},
]);

const DEFAULT_TRANSACTION_JSON = /^=\s*\{\{\s*\$json\s*\}\}\s*$/;

type Reader<T> = (itemIndex: number) => T;

/** A parameter read once when it is a fixed value, per item only when it is an expression. */
function readerFor<T>(context: IExecuteFunctions, name: string, fallback: T): Reader<T> {
	const path = name.split('.');
	let raw: unknown = context.getNode().parameters;
	for (const key of path) raw = isPlainObject(raw) ? raw[key] : undefined;
	if (typeof raw === 'string' && raw.startsWith('=')) {
		return (itemIndex) => context.getNodeParameter(name, itemIndex, fallback) as T;
	}
	const value = context.getNodeParameter(name, 0, fallback) as T;
	return () => value;
}

/** Thrown while checking one item; the loop adds the item's index and decides what to do. */
function refusal(node: INode, message: string): NodeOperationError {
	return new NodeOperationError(node, message);
}

function parseJsonObject(node: INode, value: unknown, label: string): Record<string, unknown> {
	let parsed = value;
	let problem: string | undefined;
	if (typeof value === 'string') {
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			problem = `${label} is not valid JSON: ${(error as Error).message}`;
		}
	}
	if (problem === undefined && !isPlainObject(parsed)) problem = `${label} must be a JSON object`;
	if (problem !== undefined) throw refusal(node, problem);
	return parsed as Record<string, unknown>;
}

function fieldsReaders(context: IExecuteFunctions) {
	return {
		typeBy: readerFor(context, 'typeBy', 'id'),
		typeId: readerFor<number | string>(context, 'typeId', 0),
		typeName: readerFor(context, 'typeName', ''),
		contactMode: readerFor(context, 'contactMode', 'existing'),
		contactEmail: readerFor(context, 'contactEmail', ''),
		contactExternalId: readerFor(context, 'contactExternalId', ''),
		contactId: readerFor<number | string>(context, 'contactId', 0),
		permission: readerFor<number | string>(context, 'permission', 0),
		content: readerFor<unknown>(context, 'content', '{}'),
	};
}

/** One transaction in the API's shape from the fields; empty identifications are left out. */
function fromFields(
	node: INode,
	readers: ReturnType<typeof fieldsReaders>,
	itemIndex: number,
): { transaction: Record<string, unknown>; labels: FieldLabels } {
	const transaction: Record<string, unknown> = {};
	const byName = readers.typeBy(itemIndex) === 'name';
	if (byName) {
		transaction.typeName = String(readers.typeName(itemIndex) ?? '').trim();
	} else {
		const typeId = Number(readers.typeId(itemIndex) ?? 0);
		if (typeId !== 0) transaction.type = typeId;
	}

	const contact: Record<string, unknown> = {};
	const contactId = Number(readers.contactId(itemIndex) ?? 0);
	if (contactId !== 0 && !Number.isNaN(contactId)) contact.id = contactId;
	const email = String(readers.contactEmail(itemIndex) ?? '').trim();
	if (email !== '') contact.email = email;
	const externalId = String(readers.contactExternalId(itemIndex) ?? '').trim();
	if (externalId !== '') contact.external_id = externalId;

	const content = parseJsonObject(node, readers.content(itemIndex), 'Content');
	if (readers.contactMode(itemIndex) === 'import') {
		if (email === '') throw refusal(node, 'Contact E-Mail is empty: it is required to create a missing contact');
		contact.permission = Number(readers.permission(itemIndex));
		// The spec's sample of the import form carries the content inside import.
		transaction.import = { contact, content };
	} else {
		transaction.contact = contact;
		transaction.content = content;
	}
	return {
		transaction,
		labels: {
			type: byName ? 'Transaction Type Name' : 'Transaction Type ID',
			contact: 'Contact E-Mail, Contact External ID or Contact ID',
			permission: 'Permission',
			content: 'Content',
			attachments: 'Attachment Binary Properties',
		},
	};
}

async function binaryAttachments(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
	properties: string[],
): Promise<Attachment[]> {
	const attachments: Attachment[] = [];
	let total = 0;
	for (const property of properties) {
		const binary = item.binary?.[property];
		if (binary === undefined) {
			throw refusal(context.getNode(), `Attachment Binary Properties: the item has no binary property "${property}"`);
		}
		const filename = binary.fileName ?? property;
		const mimetype = binary.mimeType || 'application/octet-stream';
		if (isExecutable(filename, mimetype)) {
			throw refusal(
				context.getNode(),
				`Attachment Binary Properties: "${filename}" (${mimetype}) in "${property}" is an executable file, which the service does not allow`,
			);
		}
		// Read through n8n: binary.data is empty when binaries are kept on disk or in S3.
		const buffer = await context.helpers.getBinaryDataBuffer(itemIndex, property);
		total += buffer.length;
		if (total > MAX_ATTACHMENT_BYTES) {
			throw refusal(
				context.getNode(),
				`Attachment Binary Properties: the attachments add up to more than ${MAX_ATTACHMENT_BYTES.toLocaleString('en-US')} bytes, the service's limit per transaction`,
			);
		}
		attachments.push({ filename, mimetype, data: buffer.toString('base64') });
	}
	return attachments;
}

function thousands(value: number): string {
	return value.toLocaleString('en-US');
}

export async function execute(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	const errorOutput = node.onError === 'continueErrorOutput';
	const inputMode = this.getNodeParameter('inputMode', 0, 'fields') as string;
	const ignoreInvalid = this.getNodeParameter('options.ignoreInvalidTransactions', 0, true) as boolean;
	const maxRequestBytes = Math.min(
		Number(this.getNodeParameter('options.maxRequestBytes', 0, SPEC_MAX_REQUEST_BYTES)),
		SPEC_MAX_REQUEST_BYTES,
	);
	if (!Number.isInteger(maxRequestBytes) || maxRequestBytes < 1024) {
		throw new NodeOperationError(node, 'Max Request Bytes must be a whole number from 1,024 to 9,000,000', {
			description: 'Remove the option to use the service’s limit of 9,000,000 bytes.',
		});
	}
	const attachmentProperties = readerFor(this, 'options.attachmentBinaryProperties', '');
	const rawJson = (node.parameters.transactionJson as unknown) ?? '={{ $json }}';
	const itemIsTransaction = typeof rawJson === 'string' && DEFAULT_TRANSACTION_JSON.test(rawJson);
	const readers = inputMode === 'fields' ? fieldsReaders(this) : undefined;

	const results: Array<INodeExecutionData | undefined> = new Array(items.length);
	// Transactions to send, in input order: item index, the JSON sent, its UTF-8 size.
	const sendItems: number[] = [];
	const serialized: string[] = [];
	const sizes: number[] = [];

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			let transaction: Record<string, unknown>;
			let labels = JSON_LABELS;
			if (readers !== undefined) {
				({ transaction, labels } = fromFields(node, readers, itemIndex));
			} else {
				const value = itemIsTransaction ? items[itemIndex].json : this.getNodeParameter('transactionJson', itemIndex);
				transaction = parseJsonObject(node, value, 'Transaction JSON');
			}
			const properties = splitList(attachmentProperties(itemIndex));
			if (properties.length > 0) {
				const attached = await binaryAttachments(this, items[itemIndex], itemIndex, properties);
				const existing = Array.isArray(transaction.attachments) ? transaction.attachments : [];
				transaction = { ...transaction, attachments: [...existing, ...attached] };
			}
			const problem = transactionProblem(transaction, labels);
			if (problem !== undefined) throw refusal(node, problem);

			const json = JSON.stringify(transaction);
			const size = Buffer.byteLength(json, 'utf8');
			if (size + 2 > maxRequestBytes) {
				throw refusal(
					node,
					`The transaction alone is ${thousands(size)} bytes as JSON, more than one request may carry (${thousands(maxRequestBytes)} bytes); make its content or attachments smaller`,
				);
			}
			sendItems.push(itemIndex);
			serialized.push(json);
			sizes.push(size);
		} catch (error) {
			// Expression and binary-read failures are this item's problem too.
			const message = `[item ${itemIndex}] ${(error as Error).message}`;
			if (!continueOnFail) {
				throw new NodeOperationError(node, message, {
					itemIndex,
					description: 'Nothing was sent: every item is checked before the first request.',
				});
			}
			results[itemIndex] = { json: { error: message }, pairedItem: { item: itemIndex } };
		}
	}

	let queuedSoFar = 0;
	let limit = maxRequestBytes;

	const failRequest = (start: number, end: number, cause: { message: string; description?: string | null; httpCode?: string | null }) => {
		const earlier =
			queuedSoFar === 0
				? 'No item of an earlier request was queued.'
				: `${thousands(queuedSoFar)} items of earlier requests were already queued: do not run the same input again, or their e-mails go out twice.`;
		const firstItem = sendItems[start];
		const message = `${cause.message} (items ${firstItem} to ${sendItems[end - 1]}, ${thousands(end - start)} transactions)`;
		const description = [cause.description, earlier].filter(Boolean).join(' ');
		const error = serviceError(this, { message, description, httpCode: cause.httpCode ?? undefined }, firstItem);
		if (!continueOnFail) throw error;
		for (let index = start; index < end; index++) {
			const itemIndex = sendItems[index];
			results[itemIndex] = { json: errorItemJson({ message, description }), pairedItem: { item: itemIndex } };
		}
	};

	const send = async (start: number, end: number): Promise<void> => {
		let response;
		try {
			response = await apiRequest.call(this, {
				method: 'POST',
				path: ['transactions'],
				query: { ignore_invalid_transactions: ignoreInvalid },
				jsonBody: arrayBody(serialized, sizes, start, end),
				repeatable: false,
				passStatuses: [413],
				itemIndex: sendItems[start],
				errorDescriptions: {
					400: ignoreInvalid
						? 'The service refused the request body. None of its transactions was queued.'
						: 'With Ignore Invalid Transactions off, one invalid transaction fails its whole request, and none of its transactions was queued. Fix the transaction named in the message, or turn the option on.',
				},
			});
		} catch (error) {
			// The transport throws only NodeApiError, and already tells an unknown outcome apart.
			const failure = error as NodeApiError;
			failRequest(start, end, { message: failure.message, description: failure.description, httpCode: failure.httpCode });
			return;
		}

		if (response.statusCode === 413) {
			const bytes = arrayBodyBytes(sizes, start, end);
			// The service's limit is below this size: later requests are packed smaller from now on.
			limit = Math.min(limit, Math.max(1024, Math.floor(bytes / 2)));
			if (end - start === 1) {
				failRequest(start, end, {
					message: `The service refused the transaction as too large (413), even sent alone (${thousands(bytes)} bytes)`,
					description: 'Its limit is lower than documented. Make the content or attachments of this item smaller.',
					httpCode: '413',
				});
				return;
			}
			const middle = start + Math.ceil((end - start) / 2);
			await send(start, middle);
			await send(middle, end);
			return;
		}

		const report = readReport(response.body, end - start);
		if (!report.ok) {
			failRequest(start, end, {
				message: `The service's report could not be matched to the transactions sent: ${report.problem}`,
				description:
					'The request was accepted, so some of these transactions may have been queued. Check in the platform before you send them again.',
				httpCode: String(response.statusCode),
			});
			return;
		}
		for (let index = start; index < end; index++) {
			const itemIndex = sendItems[index];
			const entry = report.entries[index - start];
			serialized[index] = '';
			const json: IDataObject = { queued: entry.queued, contact: entry.contact as IDataObject };
			if (entry.queued) {
				queuedSoFar++;
				results[itemIndex] = { json, pairedItem: { item: itemIndex } };
				continue;
			}
			json.message = entry.message;
			// n8n routes an item to the error output only when its JSON is exactly {error} or
			// {error, message}; it then adds the input item's fields (the contact among them).
			results[itemIndex] = {
				json: errorOutput ? { error: 'The transaction was not queued', message: entry.message } : json,
				pairedItem: { item: itemIndex },
			};
		}
	};

	for (let start = 0; start < sendItems.length; ) {
		const end = nextBatchEnd(sizes, start, limit);
		await send(start, end);
		start = end;
	}

	return results as INodeExecutionData[];
}
