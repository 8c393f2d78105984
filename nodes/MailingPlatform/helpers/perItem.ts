import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { InputProblem } from './input';

/** Any failure of one item as an n8n error carrying the item's index, so messages say `[item N]`. */
function itemError(node: INode, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const description = error instanceof InputProblem ? error.hint : undefined;
	return new NodeOperationError(node, error as Error, { itemIndex, description });
}

/**
 * The one shape of an error item: `{ error, message }` with the description as `message`, the
 * only shape (besides `{ error }`) n8n routes to the error output.
 */
export function errorItemJson(error: { message: string; description?: string | null }): IDataObject {
	return error.description ? { error: error.message, message: error.description } : { error: error.message };
}

/**
 * One item's failure: with continue-on-fail (regular or error output) its error item, otherwise
 * thrown as the node's error naming the item.
 */
export function failedItemJson(context: IExecuteFunctions, error: unknown, itemIndex: number): IDataObject {
	const nodeError = itemError(context.getNode(), error, itemIndex);
	if (!context.continueOnFail()) throw nodeError;
	return errorItemJson(nodeError);
}

/**
 * Runs `operation` for every input item, one after the other, and pairs each result with
 * its item. With continue-on-fail (regular or error output) a failing item becomes one error
 * item and the others go on; without it the first failure stops the node.
 */
export async function runPerItem(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	operation: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		try {
			const result = await operation(itemIndex);
			for (const json of Array.isArray(result) ? result : [result]) {
				output.push({ json, pairedItem: { item: itemIndex } });
			}
		} catch (error) {
			output.push({ json: failedItemJson(this, error, itemIndex), pairedItem: { item: itemIndex } });
		}
	}
	return output;
}
