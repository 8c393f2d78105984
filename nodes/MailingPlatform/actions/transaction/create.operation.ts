import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { sendInBatches } from './batching';
import { pairOutputs, requestError } from './outputs';
import { SPEC_MAX_REQUEST_BYTES } from './packing';
import { prepareTransactions } from './prepare';
import { transactionPoster } from './request';

export { description } from './create.description';

/** item -> transaction -> batch -> request -> report -> item, every input item ending as exactly one output item. */
export async function execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const continueOnFail = this.continueOnFail();
	const maxRequestBytes = Math.min(
		Number(this.getNodeParameter('options.maxRequestBytes', 0, SPEC_MAX_REQUEST_BYTES)),
		SPEC_MAX_REQUEST_BYTES,
	);
	if (!Number.isInteger(maxRequestBytes) || maxRequestBytes < 1024) {
		throw new NodeOperationError(node, 'Max Request Bytes must be a whole number from 1,024 to 9,000,000', {
			description: 'Remove the option to use the service’s limit of 9,000,000 bytes.',
		});
	}

	const { transactions, bodies, refused } = await prepareTransactions(this, items, {
		inputMode: this.getNodeParameter('inputMode', 0, 'fields') as string,
		validateJsonContent: this.getNodeParameter('options.validateGenericOrderContent', 0, false) as boolean,
		maxRequestBytes,
		continueOnFail,
	});
	const ignoreInvalid = this.getNodeParameter('options.ignoreInvalidTransactions', 0, true) as boolean;
	const outcomes = await sendInBatches({ transactions, bodies }, maxRequestBytes, transactionPoster(this, ignoreInvalid), !continueOnFail);

	const failure = outcomes.find((outcome) => outcome.kind === 'failed');
	if (failure !== undefined && !continueOnFail) throw requestError(this, transactions, failure);
	return pairOutputs(items.length, refused, transactions, outcomes, node.onError === 'continueErrorOutput');
}
