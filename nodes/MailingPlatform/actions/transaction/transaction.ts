/**
 * The API's transaction object: built from each input item (Fields or JSON input), where its
 * contact and content sit, and what the service would refuse, refused before anything is sent.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { InputProblem, isPlainObject, splitList } from '../../helpers/values';
import { parseJsonObject, readerFor, readInteger, readOptionalInteger } from '../../helpers/parameters';
import { binaryAttachments, checkAttachments } from './attachments';
import { checkedGenericOrderContent, contentReader, CONTENT_LABEL } from './content';
import type { Deduplication } from './deduplicationKey';
import { keyReader } from './deduplicationKey';
import type { Outcome } from './results';

type Transaction = Record<string, unknown>;

/** How each part of a transaction is called where the user set it: a parameter's name or a JSON path. */
interface FieldLabels {
	type: string;
	contact: string;
	permission: string;
	content: string;
	attachments: string;
}

export const JSON_LABELS: FieldLabels = {
	type: '"type" or "typeName"',
	contact: '"contact" (or "import.contact")',
	permission: '"import.contact.permission"',
	content: '"content"',
	attachments: '"attachments"',
};

const IDENTIFICATION = ['id', 'email', 'external_id'] as const;

/** The contact form, or with a permission the import form, which creates a missing contact. */
function assemble(parts: { type: { type?: number; typeName?: string }; contact: Transaction; permission?: number; content: Transaction }): Transaction {
	const { type, contact, permission, content } = parts;
	// The spec's sample of the import form carries the content inside import, next to import.contact.
	if (permission !== undefined) return { ...type, import: { contact: { ...contact, permission }, content } };
	return { ...type, contact, content };
}

/** The contact the service is asked to use: import.contact when present (the service then ignores contact). */
function contactPart(transaction: Transaction): IDataObject | undefined {
	if (transaction.import !== undefined) return isPlainObject(transaction.import) && isPlainObject(transaction.import.contact) ? transaction.import.contact : undefined;
	return isPlainObject(transaction.contact) ? transaction.contact : undefined;
}

/** The contact's identification, as the service's report names contacts. */
export function contactOf(transaction: Transaction): IDataObject {
	const contact = contactPart(transaction) ?? {};
	const identification: IDataObject = {};
	for (const key of IDENTIFICATION) if (contact[key] !== undefined) identification[key] = contact[key];
	return identification;
}

/** The content, at the top or inside import. */
function contentOf(transaction: Transaction): unknown {
	return transaction.content ?? (isPlainObject(transaction.import) ? transaction.import.content : undefined);
}

/** The transaction with its content replaced where it sits. */
function withContent(transaction: Transaction, content: Transaction): Transaction {
	if (transaction.content === undefined && isPlainObject(transaction.import)) return { ...transaction, import: { ...transaction.import, content } };
	return { ...transaction, content };
}

const isWhole = (value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): value is number =>
	typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;

function identifies(contact: IDataObject): boolean {
	const { id, email, external_id: externalId } = contact;
	return isWhole(id, 1) || (typeof email === 'string' && email.trim() !== '') || (typeof externalId === 'string' && externalId.trim() !== '');
}

const refusal = (problem: string) => new InputProblem(problem, 'Fix it in the input or in the node’s fields.');

/** The transaction, refused (naming the field) where the service would certainly refuse it. The same checks serve Fields and JSON input. */
export function checkedTransaction(value: unknown, labels: FieldLabels): Transaction {
	if (!isPlainObject(value)) throw refusal('The transaction must be a JSON object');
	const transaction: Transaction = value;
	const { type, typeName } = transaction;
	const typeGiven = type !== undefined && type !== null;
	if (typeGiven && !isWhole(type, 1)) throw refusal(`${labels.type}: the transaction type ID must be a positive whole number`);
	if (!typeGiven && !(typeof typeName === 'string' && typeName.trim() !== '')) {
		throw refusal(`${labels.type} is missing: set the transaction type by ID or by name`);
	}
	const contact = contactPart(transaction);
	if (contact === undefined || !identifies(contact)) throw refusal(`${labels.contact} is missing: give an e-mail address, external ID or contact ID`);
	if (transaction.import !== undefined) {
		if (contact.permission === 1) throw refusal(`${labels.permission} is 1 (none): no mail may be sent to a contact with it. Use 2 to 6`);
		if (!isWhole(contact.permission, 2, 6)) throw refusal(`${labels.permission} must be a whole number from 2 to 6`);
	}
	if (!isPlainObject(contentOf(transaction))) throw refusal(`${labels.content} must be a JSON object`);
	if (transaction.attachments !== undefined) checkAttachments(transaction.attachments, labels.attachments);
	return transaction;
}

type Builder = (itemIndex: number) => { transaction: Transaction; labels: FieldLabels };

const ATTACHMENTS_LABEL = 'Attachment Binary Properties';

/** The parameters' names, for messages; the type's depends on how it is given. */
const LABELS_BY_ID: FieldLabels = {
	type: 'Transaction Type ID',
	contact: 'Contact E-Mail, Contact External ID or Contact ID',
	permission: 'Permission',
	content: CONTENT_LABEL,
	attachments: ATTACHMENTS_LABEL,
};
const LABELS_BY_NAME: FieldLabels = { ...LABELS_BY_ID, type: 'Transaction Type Name' };

const text = (value: unknown) => String(value ?? '').trim();

/** Fields input: one transaction per item from the node's fields; empty identifications are left out. */
function fromFields(context: IExecuteFunctions, validateJsonContent: boolean): Builder {
	const read = {
		typeBy: readerFor(context, 'typeBy', 'id'),
		typeId: readerFor<unknown>(context, 'typeId', 0),
		typeName: readerFor<unknown>(context, 'typeName', ''),
		contactMode: readerFor(context, 'contactMode', 'existing'),
		contactEmail: readerFor<unknown>(context, 'contactEmail', ''),
		contactExternalId: readerFor<unknown>(context, 'contactExternalId', ''),
		contactId: readerFor<unknown>(context, 'contactId', ''),
		permission: readerFor<unknown>(context, 'permission', 2),
	};
	const content = contentReader(context, validateJsonContent);

	return (itemIndex) => {
		const byName = read.typeBy(itemIndex) === 'name';
		const typeId = byName ? undefined : readOptionalInteger(read.typeId(itemIndex), LABELS_BY_ID.type, 0, 0);
		const type = byName ? { typeName: text(read.typeName(itemIndex)) } : typeId === undefined ? {} : { type: typeId };

		const contact: Record<string, unknown> = {};
		const leaveEmpty = 'Leave it empty to identify the contact by e-mail or external ID.';
		const id = readOptionalInteger(text(read.contactId(itemIndex)), 'Contact ID', 0, 0, undefined, leaveEmpty);
		if (id !== undefined) contact.id = id;
		const email = text(read.contactEmail(itemIndex));
		if (email !== '') contact.email = email;
		const externalId = text(read.contactExternalId(itemIndex));
		if (externalId !== '') contact.external_id = externalId;

		const body = content(itemIndex);
		const importing = read.contactMode(itemIndex) === 'import';
		if (importing && email === '') {
			throw new InputProblem(
				'Contact E-Mail is empty: it is required to create a missing contact',
				'Map the customer’s e-mail address, or choose Contact Mode “Existing Contact”.',
			);
		}
		const permission = importing ? readInteger(read.permission(itemIndex), LABELS_BY_ID.permission) : undefined;
		return { transaction: assemble({ type, contact, permission, content: body }), labels: byName ? LABELS_BY_NAME : LABELS_BY_ID };
	};
}

/** JSON input: the item itself (read without an expression per item) or the expression's object, in the API's shape. */
function fromJson(context: IExecuteFunctions, validateContent: boolean): Builder {
	const transactionJson = readerFor<unknown>(context, 'transactionJson', '={{ $json }}');
	return (itemIndex) => {
		const transaction = parseJsonObject(transactionJson(itemIndex), 'Transaction JSON');
		const content = contentOf(transaction);
		if (!validateContent || !isPlainObject(content)) return { transaction, labels: JSON_LABELS };
		const label = transaction.content === undefined ? '"import.content"' : JSON_LABELS.content;
		return { transaction: withContent(transaction, checkedGenericOrderContent(content, true, label)), labels: JSON_LABELS };
	};
}

/** Every item's transaction (undefined where refused), the refusals, and each item's key when the Deduplication Key is on. */
interface Built {
	transactions: Array<Transaction | undefined>;
	refused: Outcome[];
	deduplication?: Deduplication;
}

/**
 * Builds every item's transaction before the first request: from the fields or the item's JSON,
 * with its attachments and key, checked as the service would check it; or refuses the item.
 */
export async function buildTransactions(
	context: IExecuteFunctions,
	settings: { inputMode: string; validateJsonContent: boolean; historySize?: number },
): Promise<Built> {
	const build = settings.inputMode === 'fields' ? fromFields(context, settings.validateJsonContent) : fromJson(context, settings.validateJsonContent);
	const attachmentProperties = readerFor(context, 'options.attachmentBinaryProperties', '');
	const readKey = settings.historySize === undefined ? undefined : keyReader(context);
	const count = context.getInputData().length;
	const keys = new Array<string>(readKey === undefined ? 0 : count);
	const built: Built = { transactions: new Array<Transaction | undefined>(count), refused: [] };
	if (settings.historySize !== undefined) built.deduplication = { keys, historySize: settings.historySize };
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		try {
			const { transaction, labels } = build(itemIndex);
			const properties = splitList(attachmentProperties(itemIndex));
			const attached =
				properties.length === 0
					? transaction
					: {
							...transaction,
							attachments: [
								...(Array.isArray(transaction.attachments) ? transaction.attachments : []),
								...(await binaryAttachments(context, itemIndex, properties, ATTACHMENTS_LABEL)),
							],
						};
			const checked = checkedTransaction(attached, labels);
			if (readKey !== undefined) keys[itemIndex] = readKey(itemIndex);
			built.transactions[itemIndex] = checked;
		} catch (problem) {
			// Expression and binary-read failures are this item's problem too.
			built.refused.push({ kind: 'refused', itemIndexes: [itemIndex], problem });
		}
	}
	return built;
}
