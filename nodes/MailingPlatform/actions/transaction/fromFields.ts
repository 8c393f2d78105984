import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { CONTENT_LABEL, contentReader } from './content';
import { InputProblem } from '../../helpers/input';
import { readerFor } from '../../helpers/parameters';
import type { TransactionBuilder } from './prepare';
import type { FieldLabels } from './validation';

const text = (value: unknown) => String(value ?? '').trim();

/** The parameters' names, for messages; the type's depends on how it is given. */
const LABELS_BY_ID: FieldLabels = {
	type: 'Transaction Type ID',
	contact: 'Contact E-Mail, Contact External ID or Contact ID',
	permission: 'Permission',
	content: CONTENT_LABEL,
	attachments: 'Attachment Binary Properties',
};
const LABELS_BY_NAME: FieldLabels = { ...LABELS_BY_ID, type: 'Transaction Type Name' };

/**
 * Builds one transaction per item in the API's shape from the Fields parameters. Empty
 * identifications are left out; the checks common to both input modes come later.
 */
export function fieldsTransactionBuilder(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	validateJsonContent: boolean,
): TransactionBuilder {
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
		const transaction: Record<string, unknown> = {};
		const byName = read.typeBy(itemIndex) === 'name';
		if (byName) {
			transaction.typeName = text(read.typeName(itemIndex));
		} else {
			const typeId = Number(read.typeId(itemIndex) ?? 0);
			if (typeId !== 0) transaction.type = typeId;
		}

		const contact: Record<string, unknown> = {};
		const contactId = text(read.contactId(itemIndex));
		const id = Number(contactId);
		if (!Number.isInteger(id) || id < 0) {
			throw new InputProblem(
				`Contact ID must be the platform's numeric contact ID, not "${contactId}"`,
				'Leave it empty to identify the contact by e-mail or external ID.',
			);
		}
		if (id > 0) contact.id = id;
		const email = text(read.contactEmail(itemIndex));
		if (email !== '') contact.email = email;
		const externalId = text(read.contactExternalId(itemIndex));
		if (externalId !== '') contact.external_id = externalId;

		const body = content(itemIndex, items[itemIndex].json);
		if (read.contactMode(itemIndex) === 'import') {
			if (email === '') {
				throw new InputProblem(
					'Contact E-Mail is empty: it is required to create a missing contact',
					'Map the customer’s e-mail address, or choose Contact Mode “Existing Contact”.',
				);
			}
			contact.permission = Number(read.permission(itemIndex));
			// The spec's sample of the import form carries the content inside import.
			transaction.import = { contact, content: body };
		} else {
			transaction.contact = contact;
			transaction.content = body;
		}
		return { transaction, labels: byName ? LABELS_BY_NAME : LABELS_BY_ID };
	};
}
