import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { checked } from './content';
import { parseJsonObject } from './parameters';
import type { TransactionBuilder } from './prepare';
import { JSON_LABELS } from './validation';
import { isPlainObject } from '../../helpers/objects';

const DEFAULT_TRANSACTION_JSON = /^=\s*\{\{\s*\$json\s*\}\}\s*$/;

/** Transaction JSON input: the item itself (read without an expression per item), or the expression's object. */
export function jsonTransactionReader(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	validateContent: boolean,
): TransactionBuilder {
	const node = context.getNode();
	const raw = (node.parameters.transactionJson as unknown) ?? '={{ $json }}';
	const itemIsTransaction = typeof raw === 'string' && DEFAULT_TRANSACTION_JSON.test(raw);
	return (itemIndex) => {
		const value = itemIsTransaction ? items[itemIndex].json : context.getNodeParameter('transactionJson', itemIndex);
		let transaction = parseJsonObject(value, 'Transaction JSON');
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
