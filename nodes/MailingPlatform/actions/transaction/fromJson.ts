import type { IExecuteFunctions } from 'n8n-workflow';

import { checked } from './content';
import { parseJsonObject, readerFor } from '../../helpers/parameters';
import type { TransactionBuilder } from './prepare';
import { JSON_LABELS } from './validation';
import { isPlainObject } from '../../helpers/objects';

/** Transaction JSON input: by default the item itself (read without an expression per item), or the expression's object. */
export function jsonTransactionReader(
	context: IExecuteFunctions,
	validateContent: boolean,
): TransactionBuilder {
	const transactionJson = readerFor<unknown>(context, 'transactionJson', '={{ $json }}');
	return (itemIndex) => {
		let transaction = parseJsonObject(transactionJson(itemIndex), 'Transaction JSON');
		if (validateContent) {
			if (isPlainObject(transaction.content)) {
				transaction = { ...transaction, content: checked(transaction.content, true, JSON_LABELS.content) };
			} else if (isPlainObject(transaction.import) && isPlainObject(transaction.import.content)) {
				const content = checked(transaction.import.content, true, '"import.content"');
				transaction = { ...transaction, import: { ...transaction.import, content } };
			}
		}
		return { transaction, labels: JSON_LABELS };
	};
}
