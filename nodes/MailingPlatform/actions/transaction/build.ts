import type { IExecuteFunctions } from 'n8n-workflow';

import { InputProblem, isPlainObject, splitList } from '../../helpers/values';
import { parseJsonObject, readerFor, readInteger, readOptionalInteger } from '../../helpers/parameters';
import { binaryAttachments } from './attachments';
import { contentReader, CONTENT_LABEL } from './content';
import type { Deduplication } from './deduplication';
import { keyReader } from './deduplication';
import { checkedGenericOrderContent } from '../../genericOrder';
import type { Outcome } from './outcomes';
import type { FieldLabels, Transaction } from './shape';
import { assemble, checkedTransaction, contentOf, JSON_LABELS, withContent } from './shape';

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
export interface Built {
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
