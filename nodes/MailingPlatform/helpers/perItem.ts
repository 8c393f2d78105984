import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * Runs `operation` for every input item, one after the other, and pairs each result with
 * its item. With continue-on-fail (regular or error output) a failing item becomes one error
 * item and the others go on; without it the first failure stops the node. Errors that are not
 * already n8n errors are wrapped with the item's index, so messages say `[item N]`.
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
			const nodeError =
				error instanceof NodeApiError || error instanceof NodeOperationError
					? error
					: new NodeOperationError(this.getNode(), error as Error, { itemIndex });
			if (nodeError.context.itemIndex === undefined) nodeError.context.itemIndex = itemIndex;
			if (!this.continueOnFail()) throw nodeError;
			output.push({ json: { error: nodeError.message }, pairedItem: { item: itemIndex } });
		}
	}
	return output;
}
