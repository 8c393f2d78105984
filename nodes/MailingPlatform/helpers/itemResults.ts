import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { InputProblem } from './values';

export type NodeError = NodeApiError | NodeOperationError;

type Paired = { pairedItem: { item: number } };

/**
 * One output item of an input item, as operations make them; `outputItems` alone decides where it
 * goes. A plain one is the output item itself, so 100,000 of them cost no copy.
 */
export type ItemResult =
	| ({ json: IDataObject } & Paired)
	/** Data that goes to the error output when the node has one (a transaction the service did not queue). */
	| ({ json: IDataObject; declined: { message: string; description?: string } } & Paired)
	/** A failure; `json` holds what the operation still knows of the item, for the regular output. */
	| ({ error: NodeError; json?: IDataObject } & Paired);

export const paired = (itemIndex: number) => ({ item: itemIndex });

/** How the node's settings say failures are handled; the router reads it once per execution. */
export interface FailurePolicy {
	/** Settings › On Error is "Continue" (regular or error output): a failure becomes its item's error item. */
	continueOnFail: boolean;
	errorOutput: boolean;
}

/** Any failure as an n8n error, naming the item it belongs to, if any; an `InputProblem`'s hint becomes its description. */
export function itemError(node: INode, error: unknown, itemIndex?: number): NodeError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		error.context.itemIndex ??= itemIndex;
		return error;
	}
	const description = error instanceof InputProblem ? error.hint : undefined;
	return new NodeOperationError(node, error as Error, { itemIndex, description });
}

/** An error item: `{ error, message }` is, besides `{ error }`, the only shape n8n routes to the error output. */
export function errorItemJson(error: { message: string; description?: string | null }): IDataObject {
	return error.description ? { error: error.message, message: error.description } : { error: error.message };
}

/** On the regular output nothing is routed by shape, so a failed item keeps what is known of it beside the error. */
function failedItemJson(policy: FailurePolicy, result: { error: NodeError; json?: IDataObject }): IDataObject {
	return policy.errorOutput || result.json === undefined ? errorItemJson(result.error) : { ...result.json, ...errorItemJson(result.error) };
}

/**
 * Runs `operation` for every item in turn. A failure is that item's result; without continue-on-fail
 * nothing runs after it, since the node stops there.
 */
async function eachItem(
	context: IExecuteFunctions,
	policy: FailurePolicy,
	operation: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
): Promise<ItemResult[]> {
	const results: ItemResult[] = [];
	const count = context.getInputData().length;
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		try {
			const json = await operation(itemIndex);
			for (const one of Array.isArray(json) ? json : [json]) results.push({ json: one, pairedItem: paired(itemIndex) });
		} catch (error) {
			results.push({ error: itemError(context.getNode(), error, itemIndex), pairedItem: paired(itemIndex) });
			if (!policy.continueOnFail) break;
		}
	}
	return results;
}

/**
 * The node's output items, each paired with its input item. Without continue-on-fail the first
 * failure is thrown, as n8n expects; with it, failures and declined items become error items,
 * which n8n sends to the error output when the node has one.
 */
export function outputItems(policy: FailurePolicy, results: readonly ItemResult[]): INodeExecutionData[] {
	if (!policy.continueOnFail) {
		const failed = results.find((result) => 'error' in result);
		if (failed !== undefined && 'error' in failed) throw failed.error;
	}
	return results.map((result) => {
		if ('error' in result) return { json: failedItemJson(policy, result), pairedItem: result.pairedItem };
		if ('declined' in result && policy.errorOutput) return { json: errorItemJson(result.declined), pairedItem: result.pairedItem };
		return 'declined' in result ? { json: result.json, pairedItem: result.pairedItem } : result;
	});
}

/** The output of an operation that handles one item at a time. */
export async function runPerItem(
	context: IExecuteFunctions,
	policy: FailurePolicy,
	operation: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
): Promise<INodeExecutionData[]> {
	return outputItems(policy, await eachItem(context, policy, operation));
}
