import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { decidedForGood } from '../transport/errors';
import { InputProblem } from './values';

export type NodeError = NodeApiError | NodeOperationError;

type Paired = { pairedItem: { item: number } };

/**
 * One output item of an input item, as operations make them; `outputOf` alone decides where it
 * goes. A plain one is the output item itself, not a copy of it.
 */
export type ItemResult =
	| ({ json: IDataObject } & Paired)
	/** Data that goes to the error output when the node has one (a transaction the service did not queue). */
	| ({ json: IDataObject; declined: { message: string; description?: string } } & Paired)
	/** A failure; `json` holds what the operation still knows of the item, for the regular output. */
	| ({ error: NodeError; json?: IDataObject } & Paired);

/** What an operation made of the input items, and what it did at the service, for n8n's next try (see retryMemory.ts). */
export interface OperationResult {
	results: ItemResult[];
	reached?: unknown;
	/** The execution fails with this, after the output was decided (only where On Error stops the workflow): its retry does what the node could not. */
	failure?: NodeError;
}

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

/** An error item: `{ error, message }` is, besides `{ error }`, the only JSON n8n routes to the error output. */
function errorItemJson(error: { message: string; description?: string | null }): IDataObject {
	return error.description ? { error: error.message, message: error.description } : { error: error.message };
}

/** On the regular output nothing is routed by shape, so a failed item keeps what is known of it beside the error. */
function failedItemJson(policy: FailurePolicy, result: { error: NodeError; json?: IDataObject }): IDataObject {
	return policy.errorOutput || result.json === undefined ? errorItemJson(result.error) : { ...result.json, ...errorItemJson(result.error) };
}

/**
 * Runs `operation` for every item in turn. A failure is that item's result; without continue-on-fail
 * nothing runs after it, since the node stops there. With `once`, the results of items whose
 * request reached the service are what this try did (`reached`), and items an earlier try of this
 * node run did (`earlier`) are not sent again.
 */
async function eachItem(
	context: IExecuteFunctions,
	policy: FailurePolicy,
	operation: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
	earlier: ReadonlyMap<number, ItemResult[]> | undefined,
): Promise<OperationResult> {
	const reached = new Map(earlier);
	const results: ItemResult[] = [];
	const count = context.getInputData().length;
	for (let itemIndex = 0; itemIndex < count; itemIndex++) {
		let itemResults = earlier?.get(itemIndex);
		if (itemResults === undefined) {
			try {
				const json = await operation(itemIndex);
				itemResults = (Array.isArray(json) ? json : [json]).map((one) => ({ json: one, pairedItem: paired(itemIndex) }));
				reached.set(itemIndex, itemResults);
			} catch (error) {
				itemResults = [{ error: itemError(context.getNode(), error, itemIndex), pairedItem: paired(itemIndex) }];
				if (decidedForGood(error)) reached.set(itemIndex, itemResults);
			}
		}
		for (const result of itemResults) results.push(result);
		if (!policy.continueOnFail && itemResults.some((result) => 'error' in result)) break;
	}
	return { results, reached };
}

/**
 * The node's output, each item paired with its input item: without continue-on-fail the first
 * failure, which the node throws, as n8n expects; with it, failures and declined items become
 * error items, which n8n sends to the error output when the node has one.
 */
export function outputOf(policy: FailurePolicy, results: readonly ItemResult[]): { items: INodeExecutionData[] } | { failure: NodeError } {
	if (!policy.continueOnFail) {
		const failed = results.find((result) => 'error' in result);
		if (failed !== undefined && 'error' in failed) return { failure: failed.error };
	}
	const items = results.map((result) => {
		if ('error' in result) return { json: failedItemJson(policy, result), pairedItem: result.pairedItem };
		if ('declined' in result && policy.errorOutput) return { json: errorItemJson(result.declined), pairedItem: result.pairedItem };
		return 'declined' in result ? { json: result.json, pairedItem: result.pairedItem } : result;
	});
	return { items };
}

/**
 * The results of an operation that handles one item at a time. `once`: the operation acts on the
 * service (a check started, a field renamed), so what reached the service is not repeated by n8n's
 * Retry On Fail (`earlier`: what an earlier try of this node run did); reads and settings may repeat.
 */
export async function runPerItem(
	context: IExecuteFunctions,
	policy: FailurePolicy,
	operation: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
	{ once = false, earlier }: { once?: boolean; earlier?: unknown } = {},
): Promise<OperationResult> {
	const result = await eachItem(context, policy, operation, once ? (earlier as ReadonlyMap<number, ItemResult[]> | undefined) : undefined);
	return once ? result : { results: result.results };
}
