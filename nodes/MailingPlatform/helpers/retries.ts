/**
 * n8n's Retry On Fail runs a node again, in the same execution and process with the same input
 * items, when it throws or when the first item of its first output has `json.error`, whatever
 * happened to the other items. What a try did at the service is kept here for the next try of
 * the same node run, so that the re-run continues the work instead of sending it again.
 */
import type { IExecuteData, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

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
