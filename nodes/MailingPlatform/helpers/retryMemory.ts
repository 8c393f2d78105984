/**
 * What a node run did at the service, kept between n8n's tries of that run (Settings › Retry On
 * Fail), so that a retry continues the work instead of sending it again.
 *
 * n8n-core's `WorkflowExecute.runNode` loop (checked in n8n 1.123, 2.8 and 2.41) runs a node again,
 * with the same execute data object and the same input items, when it throws or when the first
 * item of its first output has `json.error`, until it has run `maxTries` times (2 to 5, default 3).
 * What is kept is keyed by that object, so no other node run, execution or retry of a failed
 * execution from the executions list ever sees it.
 */
import type { IExecuteData, IExecuteFunctions } from 'n8n-workflow';

import { nodeOf } from './parameters';

interface Kept {
	itemCount: number;
	/** The tries of this node run so far. */
	tries: number;
	state: unknown;
}

const kept = new WeakMap<IExecuteData, Kept>();

const runOf = (context: IExecuteFunctions): IExecuteData | undefined => context.getExecuteData?.();

/** How often n8n runs the node at most, as WorkflowExecute reads the node's settings. */
function maxTriesOf(context: IExecuteFunctions): number {
	const node = nodeOf(context);
	return node.retryOnFail === true ? Math.min(5, Math.max(2, node.maxTries || 3)) : 1;
}

/** What earlier tries of this node run kept, when n8n runs the node again on the same input. */
export function recallTries(context: IExecuteFunctions): unknown {
	const run = runOf(context);
	const earlier = run === undefined ? undefined : kept.get(run);
	return earlier !== undefined && earlier.itemCount === context.getInputData().length ? earlier.state : undefined;
}

/**
 * After a try: keeps `state` (what reached the service) when n8n will run the node again, that is
 * when it failed and tries are left; forgets it otherwise, also when the node failed for good.
 */
export function afterTry(context: IExecuteFunctions, state: unknown, failed: boolean): void {
	const run = runOf(context);
	if (run === undefined) return;
	const tries = (kept.get(run)?.tries ?? 0) + 1;
	if (failed && tries < maxTriesOf(context)) kept.set(run, { itemCount: context.getInputData().length, tries, state });
	else kept.delete(run);
}
