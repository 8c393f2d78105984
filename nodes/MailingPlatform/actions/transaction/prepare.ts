import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { InputProblem } from '../../helpers/input';
import { splitList } from '../../helpers/lists';
import { binaryAttachments } from './attachments';
import { fieldsTransactionBuilder } from './fromFields';
import { jsonTransactionReader } from './fromJson';
import type { PackedBody, PreparedTransaction } from './packing';
import { BodyPacker } from './packing';
import { readerFor } from '../../helpers/parameters';
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
	/** Their request bodies, packed for the byte limit. */
	bodies: PackedBody[];
	/** Items refused before sending (only with continue-on-fail; otherwise the first refusal throws). */
	refused: Array<{ itemIndex: number; message: string; hint?: string }>;
}

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
	const refused: Prepared['refused'] = [];
	const refuse = (itemIndex: number, error: Error) => {
		const message = `[item ${itemIndex}] ${error.message}`;
		const hint = error instanceof InputProblem ? error.hint : undefined;
		if (!settings.continueOnFail) {
			throw new NodeOperationError(node, message, {
				itemIndex,
				description: [hint, 'Nothing was sent: every item is checked before the first request.'].filter(Boolean).join(' '),
			});
		}
		refused.push({ itemIndex, message, hint });
	};
	const packer = new BodyPacker(settings.maxRequestBytes, refuse);

	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		let transaction: Record<string, unknown>;
		try {
			let labels: FieldLabels;
			({ transaction, labels } = build(itemIndex));
			const properties = splitList(attachmentProperties(itemIndex));
			if (properties.length > 0) {
				const attached = await binaryAttachments(context, items[itemIndex], itemIndex, properties);
				const existing = Array.isArray(transaction.attachments) ? transaction.attachments : [];
				transaction = { ...transaction, attachments: [...existing, ...attached] };
			}
			const problem = transactionProblem(transaction, labels);
			if (problem !== undefined) throw new InputProblem(problem, 'Fix it in the input or in the node’s fields.');
		} catch (error) {
			packer.flush(); // an earlier item that cannot be sent is refused first
			// Expression and binary-read failures are this item's problem too.
			refuse(itemIndex, error as Error);
			continue;
		}
		packer.add(itemIndex, transaction);
	}
	return { ...packer.finish(), refused };
}
