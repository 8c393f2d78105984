/** The API's transaction object: how it is assembled, where its contact and content sit, and what the service refuses. */
import type { IDataObject } from 'n8n-workflow';

import { InputProblem, isPlainObject } from '../../helpers/values';
import { checkAttachments } from './attachments';

export type Transaction = Record<string, unknown>;

/** How each part of a transaction is called where the user set it: a parameter's name or a JSON path. */
export interface FieldLabels {
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
export function assemble(parts: { type: { type?: number; typeName?: string }; contact: Transaction; permission?: number; content: Transaction }): Transaction {
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
export function contentOf(transaction: Transaction): unknown {
	return transaction.content ?? (isPlainObject(transaction.import) ? transaction.import.content : undefined);
}

/** The transaction with its content replaced where it sits. */
export function withContent(transaction: Transaction, content: Transaction): Transaction {
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
