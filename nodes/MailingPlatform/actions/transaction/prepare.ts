import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { InputProblem } from '../../helpers/input';
import { splitList } from '../../helpers/lists';
import { binaryAttachments } from './attachments';
import { fieldsTransactionBuilder } from './fromFields';
import { jsonTransactionReader } from './fromJson';
import type { PreparedTransaction } from './packing';
import { serialize } from './packing';
import { readerFor } from './parameters';
import type { FieldLabels } from './validation';
import { transactionProblem } from './validation';

export interface PrepareSettings {
	inputMode: string;
	maxRequestBytes: number;
	validateJsonContent: boolean;
	continueOnFail: boolean;
}

export type TransactionBuilder = (itemIndex: number) => { transaction: Record<string, unknown>; labels: FieldLabels };

export interface Prepared {
	/** The transactions to send, in input order. */
	transactions: PreparedTransaction[];
	/** Items refused before sending (only with continue-on-fail; otherwise the first refusal throws). */
	refused: Array<{ itemIndex: number; message: string; hint?: string }>;
}

const thousands = (value: number) => value.toLocaleString('en-US');

/**
 * Every item checked and serialized before the first request: item -> transaction. A refused
 * item stops the node, or with continue-on-fail becomes that item's error and the rest go on.
 */
export async function prepareTransactions(
	context: IExecuteFunctions,
	items: INodeExecutionData[],
	settings: PrepareSettings,
): Promise<Prepared> {
	const node = context.getNode();
	const build = (settings.inputMode === 'fields' ? fieldsTransactionBuilder : jsonTransactionReader)(
		context,
		items,
		settings.validateJsonContent,
	);
	const attachmentProperties = readerFor(context, 'options.attachmentBinaryProperties', '');
	const prepared: Prepared = { transactions: [], refused: [] };

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			let { transaction, labels } = build(itemIndex);
			const properties = splitList(attachmentProperties(itemIndex));
			if (properties.length > 0) {
				const attached = await binaryAttachments(context, items[itemIndex], itemIndex, properties);
				const existing = Array.isArray(transaction.attachments) ? transaction.attachments : [];
				transaction = { ...transaction, attachments: [...existing, ...attached] };
			}
			const problem = transactionProblem(transaction, labels);
			if (problem !== undefined) throw new InputProblem(problem, 'Fix it in the input or in the node’s fields.');

			const serialized = serialize(itemIndex, transaction);
			if (serialized.bytes + 2 > settings.maxRequestBytes) {
				throw new InputProblem(
					`The transaction alone is ${thousands(serialized.bytes)} bytes as JSON, more than one request may carry (${thousands(settings.maxRequestBytes)} bytes)`,
					'Make its content or attachments smaller.',
				);
			}
			prepared.transactions.push(serialized);
		} catch (error) {
			// Expression and binary-read failures are this item's problem too.
			const message = `[item ${itemIndex}] ${(error as Error).message}`;
			const hint = error instanceof InputProblem ? error.hint : undefined;
			if (!settings.continueOnFail) {
				throw new NodeOperationError(node, message, {
					itemIndex,
					description: [hint, 'Nothing was sent: every item is checked before the first request.'].filter(Boolean).join(' '),
				});
			}
			prepared.refused.push({ itemIndex, message, hint });
		}
	}
	return prepared;
}
