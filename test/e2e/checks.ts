import assert from 'node:assert/strict';

import type { ExecutionResult } from './cases';
import type { RunData, WorkflowFile } from './workflowFile';

/** The run data of a successful execution; anything else fails the case. */
export function succeeded(result: ExecutionResult): RunData {
	if (result.exitCode !== 0) throw new Error(`the workflow failed (n8n execute exited with ${result.exitCode})`);
	if (result.runData === undefined) throw new Error('n8n printed no execution result');
	return result.runData;
}

/** The error a node ended with in a failed execution. */
export function nodeError(result: ExecutionResult, nodeName: string): { message?: string; httpCode?: string | null } {
	assert.notEqual(result.exitCode, 0, 'the workflow must fail');
	const error = result.runData?.[nodeName]?.[0]?.error as { message?: string; httpCode?: string | null } | undefined;
	if (error === undefined) throw new Error(`node "${nodeName}" reported no error`);
	return error;
}

/** The Send Order Confirmation node's options, to edit as the user would. */
export function sendOptions(workflow: WorkflowFile): Record<string, unknown> {
	const send = workflow.nodes.find((node) => node.name === 'Send Order Confirmation');
	if (send === undefined) throw new Error(`${workflow.name} has no Send Order Confirmation node`);
	return send.parameters.options as Record<string, unknown>;
}
