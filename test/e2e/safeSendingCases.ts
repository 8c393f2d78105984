/**
 * Safe sending in a real n8n: Dry Run, and the Deduplication Key kept in n8n's own
 * deduplication store (its database), so that an order is sent once over executions.
 */
import assert from 'node:assert/strict';

import type { ServiceDouble } from '../double/server';
import type { E2eCase, ExecutionResult } from './cases';
import { nodeError, sendOptions, succeeded } from './checks';
import type { ProcessedDataRow } from './processedData';
import { readmeKeyExpression } from './readmeKey';
import type { WorkflowFile } from './workflowFile';
import { outputOf } from './workflowFile';

const SEND = 'Send Order Confirmation';

/** The order ids the service queued, in order, of the orders whose id starts with `prefix`. */
function queuedOrders(double: ServiceDouble, prefix: string): Array<string | undefined> {
	return double.transactions.queuedOrderIds().filter((id) => id?.startsWith(prefix));
}

function transactionRequests(execution: ExecutionResult) {
	return execution.requests.filter((request) => request.rawPath.startsWith('transactions'));
}

/** The Send node's output items of an execution that succeeded. */
const sendOutput = (execution: ExecutionResult) => outputOf(succeeded(execution), SEND);

/** Items not sent because their key was sent before: skipped, with their key, not queued. */
function assertSkipped(items: Array<Record<string, unknown>>, keys: string[]): void {
	assert.deepEqual(
		items.map((item) => ({ skipped: item.skipped, deduplicationKey: item.deduplicationKey, queued: item.queued === true })),
		keys.map((key) => ({ skipped: true, deduplicationKey: key, queued: false })),
	);
}

/** The Shop Order node delivers order `id` (its e-mail and total unchanged). */
function deliverOrder(workflow: WorkflowFile, id: string): void {
	const shop = workflow.nodes.find((node) => node.name === 'Shop Order');
	if (shop === undefined) throw new Error(`${workflow.name} has no Shop Order node`);
	shop.parameters.jsonOutput = JSON.stringify({ id, email: 'anna@example.com', total: 10 });
}

/** The node's history in n8n's database: the row of scope 'node' for the node with this id. */
function historyOf(rows: ProcessedDataRow[], nodeId: string): ProcessedDataRow | undefined {
	return rows.find((row) => row.context === `n:${nodeId}`);
}

export const safeSendingCases: E2eCase[] = [
	{
		name: "safe sending: the README's Deduplication Key behind n8n's Webhook node sends an order delivered twice once",
		workflow: 'test/e2e/workflows/readmeKeyBehindWebhook.json',
		standIns: { Webhook: 'pinnedData' },
		// The user copies the README's expression into the option; the shop delivers the order twice.
		executions: [{ edit: (workflow) => (sendOptions(workflow).deduplicationKey = `=${readmeKeyExpression()}`) }, {}],
		check({ executions: [first, second], double }) {
			assert.deepEqual(sendOutput(first).map((item) => item.queued), [true]);
			assertSkipped(sendOutput(second), ['README-1']);
			assert.deepEqual(transactionRequests(second), [], 'the second delivery sent nothing');
			assert.deepEqual(queuedOrders(double, 'README-'), ['README-1'], 'one e-mail for the order');
		},
	},
	{
		name: "n8n's deduplication store is shared by two executions of one workflow (Remove Duplicates)",
		workflow: 'test/e2e/workflows/removeDuplicatesTwice.json',
		executions: [{}, {}],
		async check({ executions, processedData }) {
			const [first, second] = executions.map((execution) => outputOf(succeeded(execution), 'Remove Duplicates'));
			assert.deepEqual(first.map((item) => item.id), ['SEEN-1', 'SEEN-2', 'SEEN-3']);
			assert.deepEqual(second, [], 'the second execution found every id in the history of the first');
			assert.deepEqual(historyOf(await processedData(), 'e2eN8nDedupStore-0004'), { context: 'n:e2eN8nDedupStore-0004', mode: 'entries', entries: 3 });
		},
	},
	{
		name: 'safe sending: a dry run sends nothing, the real run after it sends all three',
		workflow: 'test/e2e/workflows/transactionDryRun.json',
		executions: [{}, { edit: (workflow) => (sendOptions(workflow).dryRun = false) }],
		check({ executions: [dry, real], double }) {
			assert.deepEqual(transactionRequests(dry).map((request) => request.method), [], 'the dry run made no request');
			const dryItems = sendOutput(dry);
			assert.deepEqual(dryItems.map((item) => [item.dryRun, item.queued === true]), [[true, false], [true, false], [true, false]]);

			assert.deepEqual(sendOutput(real).map((item) => item.queued), [true, true, true]);
			assert.deepEqual(queuedOrders(double, 'DRY-'), ['DRY-1', 'DRY-2', 'DRY-3'], 'the real run sent all three, once');
			const sent = double.transactions.queued.filter((queued) => queued.orderId?.startsWith('DRY-')).map((queued) => queued.transaction);
			assert.deepEqual(dryItems.map((item) => item.transaction), sent, 'the dry run showed each transaction exactly as it was sent');
		},
	},
	{
		name: 'safe sending: the same three orders in two executions reach the service once',
		workflow: 'test/e2e/workflows/transactionDeduplication.json',
		executions: [{}, {}],
		async check({ executions: [first, second], double, processedData }) {
			assert.deepEqual(sendOutput(first).map((item) => item.queued), [true, true, true]);
			assert.deepEqual(
				transactionRequests(second).map((request) => `${request.method} ${request.rawPath}`),
				[],
				`the second execution sent again; the service queued ${queuedOrders(double, 'TWICE-').join(', ')}`,
			);
			assertSkipped(sendOutput(second), ['TWICE-1', 'TWICE-2', 'TWICE-3']);
			assert.deepEqual(queuedOrders(double, 'TWICE-'), ['TWICE-1', 'TWICE-2', 'TWICE-3']);
			assert.ok(
				sendOutput(second).every((item) => String(item.message).includes('already sent')),
				`the second execution says the orders were sent already: ${sendOutput(second).map((item) => String(item.message)).join(' | ')}`,
			);
			// Three keys and the marks of their queued transactions, written before `n8n execute` ends.
			assert.equal(historyOf(await processedData(), 'e2eDedupOrders01-0004')?.entries, 6, "n8n's database keeps each key and its mark");
		},
	},
	{
		name: 'safe sending: two items with the same key in one execution make one transaction',
		workflow: 'test/e2e/workflows/transactionSameKeyTwice.json',
		check(result) {
			assert.deepEqual(queuedOrders(result.double, 'SAME-'), ['SAME-1'], 'the service queued the order once');
			const [sent, repeated, ...rest] = sendOutput(result);
			assert.equal(rest.length, 0, 'one output item per input item');
			assert.equal(sent.queued, true);
			assertSkipped([repeated], ['SAME-1']);
		},
	},
	{
		name: 'safe sending: with a Deduplication History Size of 2, the oldest of three orders is forgotten and sent again',
		workflow: 'test/e2e/workflows/transactionHistorySize.json',
		// Five orders overflow a history of 2 keys (4 entries: each key and its mark).
		executions: ['HIST-1', 'HIST-2', 'HIST-3', 'HIST-4', 'HIST-5', 'HIST-5', 'HIST-1'].map((id) => ({ edit: (workflow) => deliverOrder(workflow, id) })),
		async check({ executions, double, processedData }) {
			const outcomes = executions.map((execution) => sendOutput(execution).map((item) => (item.skipped === true ? 'skipped' : item.queued)));
			assert.deepEqual(outcomes, [[true], [true], [true], [true], [true], ['skipped'], [true]]);
			assert.deepEqual(queuedOrders(double, 'HIST-'), ['HIST-1', 'HIST-2', 'HIST-3', 'HIST-4', 'HIST-5', 'HIST-1']);
			assert.equal(historyOf(await processedData(), 'e2eDedupHistory1-0003')?.entries, 4, "n8n's database keeps at most twice two entries");
		},
	},
	{
		name: 'safe sending: an order not sent within Max Wait Seconds (the service answered 503) is sent by the next execution, and only then remembered',
		workflow: 'test/e2e/workflows/transactionFailedSend.json',
		executions: [{ prepare: (double) => double.faults.failNext(1_000, 503, { match: 'transactions' }) }, { prepare: (double) => double.faults.reset() }, {}],
		check({ executions: [failed, next, third], double }) {
			const statuses = transactionRequests(failed).map((request) => request.status);
			assert.ok(statuses.length > 0 && statuses.every((status) => status === 503), `every request of the first execution refused: ${statuses.join(', ')}`);
			nodeError(failed, SEND);
			assert.deepEqual(sendOutput(next).map((item) => item.queued), [true], 'the next execution sent the order');
			assertSkipped(sendOutput(third), ['FAIL-1']);
			assert.deepEqual(queuedOrders(double, 'FAIL-'), ['FAIL-1']);
		},
	},
];
