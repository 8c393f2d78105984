import type { IDataObject, IExecuteData, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { ServiceError } from '../transport/errors';
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

/** An error item: `{ error, message }` is, besides `{ error }`, the only JSON n8n routes to the error output. */
function errorItemJson(error: { message: string; description?: string | null }): IDataObject {
	return error.description ? { error: error.message, message: error.description } : { error: error.message };
}

/** On the regular output nothing is routed by shape, so a failed item keeps what is known of it beside the error. */
function failedItemJson(policy: FailurePolicy, result: { error: NodeError; json?: IDataObject }): IDataObject {
	return policy.errorOutput || result.json === undefined ? errorItemJson(result.error) : { ...result.json, ...errorItemJson(result.error) };
}

/*
 * n8n's Retry On Fail runs a node again, in the same execution and process with the same input
 * items, when it throws or when the first item of its first output has `json.error`, whatever
 * happened to the other items. What a try did at the service is kept for the next try of the
 * same node run, so that the re-run continues the work instead of sending it again.
 */

/**
 * Keyed by the node run's execute data, which n8n hands to every try of the run: what is kept
 * is freed with it once the node has run, even when the execution is stopped between tries.
 */
const earlierTries = new WeakMap<IExecuteData, { itemCount: number; state: unknown }>();

const runOf = (context: IExecuteFunctions): IExecuteData | undefined => context.getExecuteData?.();

/** What earlier tries of this node run kept, when n8n runs the node again on the same input. */
export function recallTries<T>(context: IExecuteFunctions): T | undefined {
	const run = runOf(context);
	const kept = run === undefined ? undefined : earlierTries.get(run);
	return kept !== undefined && kept.itemCount === context.getInputData().length ? (kept.state as T) : undefined;
}

/** Keeps what this try did at the service for the next try, when the node's Retry On Fail is on. */
export function keepForRetry(context: IExecuteFunctions, state: unknown): void {
	const run = runOf(context);
	if (run === undefined || context.getNode().retryOnFail !== true) return;
	earlierTries.set(run, { itemCount: context.getInputData().length, state });
}

/** Forgets what was kept once n8n will not run the node again after this output. */
export function forgetTriesAfter(context: IExecuteFunctions, output: readonly INodeExecutionData[]): void {
	const run = runOf(context);
	if (run !== undefined && output[0]?.json.error === undefined) earlierTries.delete(run);
}

/** Whether a failure came from the service after it got the request: sending it again could do it twice. */
function reachedService(error: unknown): boolean {
	return error instanceof ServiceError && !error.notProcessed;
}

/**
 * Runs `operation` for every item in turn. A failure is that item's result; without continue-on-fail
 * nothing runs after it, since the node stops there. With `once`, the results of items whose
 * request reached the service are kept for n8n's Retry On Fail, and a re-run reuses them
 * instead of sending those requests again.
 */
async function eachItem(
	context: IExecuteFunctions,
	policy: FailurePolicy,
	operation: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
	once: boolean,
): Promise<ItemResult[]> {
	const earlier = once ? recallTries<ReadonlyMap<number, ItemResult[]>>(context) : undefined;
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
				if (reachedService(error)) reached.set(itemIndex, itemResults);
			}
		}
		for (const result of itemResults) results.push(result);
		if (!policy.continueOnFail && itemResults.some((result) => 'error' in result)) break;
	}
	if (once) keepForRetry(context, reached);
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

/**
 * The output of an operation that handles one item at a time. `once`: the operation acts on the
 * service (a check started, a field renamed), so a re-run by n8n's Retry On Fail does not repeat
 * what reached the service; reads and settings may repeat.
 */
export async function runPerItem(
	context: IExecuteFunctions,
	policy: FailurePolicy,
	operation: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
	{ once = false }: { once?: boolean } = {},
): Promise<INodeExecutionData[]> {
	return outputItems(policy, await eachItem(context, policy, operation, once));
}
