import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { InputProblem } from '../../helpers/input';
import { splitList } from '../../helpers/lists';
import { failedItemJson } from '../../helpers/perItem';
import { binaryAttachments } from './attachments';
import { deduplicationKeyReader } from './deduplication';
import { fieldsTransactionBuilder } from './fromFields';
import { jsonTransactionReader } from './fromJson';
import type { ItemResults } from './outputs';
import type { PreparedTransaction } from './packing';
import { readerFor } from '../../helpers/parameters';
import type { CreateSettings } from './settings';
import type { FieldLabels } from './validation';
import { transactionProblem } from './validation';

export type TransactionBuilder = (itemIndex: number) => { transaction: Record<string, unknown>; labels: FieldLabels };

/**
 * item -> transaction, for every item before the first request: built, attachments added, checked
 * as the service would check it. A refused item stops the node, or with continue-on-fail becomes
 * that item's error item and the others go on.
 */
export async function prepareTransactions(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	settings: CreateSettings,
	results: ItemResults,
): Promise<PreparedTransaction[]> {
	const build =
		settings.inputMode === 'fields'
			? fieldsTransactionBuilder(context, items, settings.validateJsonContent)
			: jsonTransactionReader(context, settings.validateJsonContent);
	const attachmentProperties = readerFor(context, 'options.attachmentBinaryProperties', '');
	const readKey = settings.deduplication === undefined ? undefined : deduplicationKeyReader(context);
	const prepared: PreparedTransaction[] = [];

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const { transaction: built, labels } = build(itemIndex);
			let transaction = built;
			const properties = splitList(attachmentProperties(itemIndex));
			if (properties.length > 0) {
				const attached = await binaryAttachments(context, items[itemIndex], itemIndex, properties);
				const existing = Array.isArray(transaction.attachments) ? transaction.attachments : [];
				transaction = { ...transaction, attachments: [...existing, ...attached] };
			}
			const problem = transactionProblem(transaction, labels);
			if (problem !== undefined) throw new InputProblem(problem, 'Fix it in the input or in the node’s fields.');
			if (readKey !== undefined) results.rememberKey(itemIndex, readKey(itemIndex));
			prepared.push({ itemIndex, transaction });
		} catch (error) {
			// Expression and binary-read failures are this item's problem too.
			results.refused(itemIndex, failedItemJson(context, error, itemIndex));
		}
	}
	return prepared;
}
