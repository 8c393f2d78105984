/**
 * n8n's Retry On Fail (Max. Tries 3, Wait Between Tries 0, which n8n runs as 1 s) in a real
 * n8n: a re-run of the node continues its work instead of sending again. Each case asserts what
 * the double received and what the node's items say; test/workflows/retryOnFail.test.ts runs
 * the same scenarios in-process.
 */
import assert from 'node:assert/strict';

import { MAILINGS } from '../double/routes/mailings';
import type { ServiceDouble } from '../double/server';
import type { E2eCase, ExecutionResult } from './cases';
import { nodeError, succeeded } from './checks';
import type { RunData } from './workflowFile';
import { outputOf } from './workflowFile';

const SEND = 'Send Order Confirmation';

/** n8n's record of one node run; the tries of Retry On Fail all happen inside it. */
type NodeRun = RunData[string][number] & { executionTime?: number; hints?: Array<{ message?: string }> };

/** The node's one run in the execution. */
function nodeRun(runData: RunData | undefined, nodeName: string): NodeRun {
	const runs = runData?.[nodeName] ?? [];
	assert.equal(runs.length, 1, `node "${nodeName}" ran once (its tries are inside that run)`);
	return runs[0];
}

/**
 * That n8n tried the node `tries` times: it waits 1 s before each try after the first. Nothing
 * the service sees tells a re-run that sends nothing again from no re-run at all.
 */
function assertTried(run: NodeRun, tries: number): void {
	const waits = tries - 1;
	assert.ok((run.executionTime ?? 0) >= waits * 1000, `n8n tried the node ${tries} times: ${waits} waits of 1 s, but the run took ${run.executionTime} ms`);
}

/**
 * The run data of an execution that succeeded after n8n tried `nodeName` `tries` times, whose
 * output panel shows the node's Retry On Fail hint, starting with `hint`.
 */
function succeededAfterTries(result: ExecutionResult, nodeName: string, tries: number, hint: string): RunData {
	const runData = succeeded(result);
	const run = nodeRun(runData, nodeName);
	assertTried(run, tries);
	const hints = (run.hints ?? []).map((shown) => shown.message ?? '');
	assert.equal(hints.length, 1, `one hint in the output panel, found ${JSON.stringify(hints)}`);
	assert.ok(hints[0].startsWith(hint), `the hint says "${hint} ...", found "${hints[0]}"`);
	return runData;
}

/** The order ids the service queued, in order, of the orders whose id starts with `prefix`. */
function queuedOrders(double: ServiceDouble, prefix: string): Array<string | undefined> {
	return double.transactions.queuedOrderIds().filter((id) => id?.startsWith(prefix));
}

/** The statuses of the execution's POST transactions, one per request the service received (-1: connection dropped). */
function transactionStatuses(execution: ExecutionResult): number[] {
	return execution.requests.filter((request) => request.rawPath.startsWith('transactions')).map((request) => request.status);
}

/** The execution sent its orders in one POST, which the re-runs did not send again, and the service queued the orders `queued`, once each. */
function assertPostedOnce(execution: ExecutionResult, double: ServiceDouble, status: number, prefix: string, queued: number[]): void {
	assert.deepEqual(transactionStatuses(execution), [status], 'one POST, not sent again by the re-runs');
	assert.deepEqual(queuedOrders(double, prefix), queued.map((index) => `${prefix}${index}`));
}

/**
 * The items on Create's error output: n8n puts each beside the input item it pairs with, so the
 * user sees the order that was not queued next to the error.
 */
function errorOutput(runData: RunData): Array<{ error: unknown; message: unknown; order: unknown }> {
	return outputOf(runData, SEND, 1).map((item) => ({ error: item.error, message: item.message, order: (item.content as Record<string, unknown> | undefined)?.['order.id'] }));
}

/** Create's output items side by side: whether each reads queued, and whether it reads skipped. */
const queuedAndSkipped = (items: Array<Record<string, unknown>>) => items.map((item) => [item.queued === true, item.skipped === true]);

const CREATE_HINT = 'Retry On Fail sends again only the transactions the service did not take';
const NOT_QUEUED = 'The transaction was not queued';

export const retryCases: E2eCase[] = [
	{
		name: 'retry on fail: Create with the error output, the first order not queued: each order posted once, the other four read queued',
		workflow: 'test/e2e/workflows/retryCreateErrorOutput.json',
		check(result) {
			const runData = succeededAfterTries(result, SEND, 3, CREATE_HINT);
			assertPostedOnce(result, result.double, 200, 'RETRY-OUT-', [1, 2, 3, 4]);
			assert.deepEqual(queuedAndSkipped(outputOf(runData, SEND)), Array(4).fill([true, false]));
			assert.deepEqual(errorOutput(runData), [{ error: NOT_QUEUED, message: 'No valid contact identification provided for transaction.', order: 'RETRY-OUT-0' }]);
		},
	},
	{
		name: 'retry on fail: Create with Continue, the first item refused before sending: the others posted once and read queued',
		workflow: 'test/e2e/workflows/retryCreateContinue.json',
		check(result) {
			const runData = succeededAfterTries(result, SEND, 3, CREATE_HINT);
			assertPostedOnce(result, result.double, 200, 'RETRY-CONT-', [1, 2, 3, 4]);
			const [refused, ...others] = outputOf(runData, SEND);
			assert.match(String(refused.error), /"content" must be a JSON object/);
			assert.deepEqual(queuedAndSkipped(others), Array(4).fill([true, false]));
		},
	},
	{
		name: 'retry on fail: Create with On Error Stop, the answer lost after the service queued the orders: posted once, the execution fails with the unknown outcome',
		workflow: 'test/e2e/workflows/retryCreateAnswerLost.json',
		executions: [{ prepare: (double) => double.faults.dropNext(1, { match: 'transactions', afterProcessing: true }) }],
		check(result) {
			const error = nodeError(result, SEND);
			assert.match(error.message ?? '', /outcome is unknown/);
			assertTried(nodeRun(result.runData, SEND), 3);
			assertPostedOnce(result, result.double, -1, 'RETRY-LOST-', [0, 1, 2]);
			assert.deepEqual(outputOf(result.runData ?? {}, SEND), [], 'no output items');
		},
	},
	{
		name: 'retry on fail: Create with a Deduplication Key, the first order not queued: no order twice, queued ones not called skipped, the first sent by the next execution',
		workflow: 'test/e2e/workflows/retryCreateDeduplicationKey.json',
		executions: [
			{ prepare: (double) => double.faults.notQueuedOrders.add('RETRY-KEY-0') },
			{ prepare: (double) => double.faults.notQueuedOrders.delete('RETRY-KEY-0') },
		],
		check({ executions: [first, next], double }) {
			const runData = succeededAfterTries(first, SEND, 3, CREATE_HINT);
			assert.deepEqual(transactionStatuses(first), [200], 'one POST, not sent again by the re-runs');
			assert.deepEqual(queuedAndSkipped(outputOf(runData, SEND)), Array(4).fill([true, false]), 'the four read queued, none skipped');
			const message = 'The transaction could not be queued now. Its Deduplication Key is not kept, so a re-run sends it.';
			assert.deepEqual(errorOutput(runData), [{ error: NOT_QUEUED, message, order: 'RETRY-KEY-0' }]);

			assert.deepEqual(queuedAndSkipped(outputOf(succeeded(next), SEND)), [[true, false], ...Array(4).fill([false, true])], 'the next execution sends only the first');
			assert.deepEqual(queuedOrders(double, 'RETRY-KEY-'), ['RETRY-KEY-1', 'RETRY-KEY-2', 'RETRY-KEY-3', 'RETRY-KEY-4', 'RETRY-KEY-0']);
		},
	},
	{
		name: 'retry on fail: Create with the service unavailable (503) past Max Wait Seconds: the re-run sends again, each order queued once',
		workflow: 'test/e2e/workflows/retryCreateUnavailable.json',
		// The pause the 503 asks for (3 s) outlasts the first try's Max Wait Seconds (2 s), not the second's.
		executions: [{ prepare: (double) => double.faults.failNext(1, 503, { retryAfter: '3', match: 'transactions' }) }],
		check(result) {
			const runData = succeededAfterTries(result, SEND, 2, CREATE_HINT);
			assert.deepEqual(transactionStatuses(result), [503, 200]);
			assert.deepEqual(queuedOrders(result.double, 'RETRY-503-'), ['RETRY-503-0', 'RETRY-503-1']);
			assert.deepEqual(queuedAndSkipped(outputOf(runData, SEND)), Array(2).fill([true, false]));
		},
	},
	{
		name: 'retry on fail: Start Message Size Check after a missing mailing: the check is started once, its item reads started',
		workflow: 'test/e2e/workflows/retryCheckStart.json',
		check(result) {
			const runData = succeededAfterTries(result, 'Start Check', 3, 'Retry On Fail repeats only the check starts the service did not take');
			assert.deepEqual(
				result.requests.map((request) => `${request.method} ${request.rawPath} ${request.status}`),
				['POST mailings/4242/checks/messagesize 404', `POST mailings/${MAILINGS.withoutResult}/checks/messagesize 200`],
			);
			const [missing, started, ...rest] = outputOf(runData, 'Start Check');
			assert.equal(rest.length, 0, 'one output item per input item');
			assert.equal(missing.error, 'Mailing with id 4242 not found.');
			assert.deepEqual(started, { mailingId: MAILINGS.withoutResult, check: 'messageSize', started: true });
		},
	},
	{
		name: 'retry on fail: Rename after a failing rename: the field is renamed once, its item reads renamed',
		workflow: 'test/e2e/workflows/retryRename.json',
		check(result) {
			const runData = succeededAfterTries(result, 'Rename Field', 3, 'Retry On Fail repeats only the renames the service did not take');
			assert.deepEqual(
				result.requests.map((request) => `${request.method} ${request.rawPath} ${request.status}`),
				['PUT contacts/fields/custom/no%20such%20field/anything 404', 'PUT contacts/fields/custom/shoe%20size/shoe%20size%20eu 204'],
			);
			const [missing, renamed, ...rest] = outputOf(runData, 'Rename Field');
			assert.equal(rest.length, 0, 'one output item per input item');
			assert.equal(missing.error, "Custom field 'no such field' does not exist.");
			assert.deepEqual(renamed, { renamed: true, oldName: 'shoe size', newName: 'shoe size eu' });
			assert.ok(result.double.contactFields.customFields.has('shoe size eu'));
		},
	},
];
