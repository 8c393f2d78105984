import assert from 'node:assert/strict';

import type { RecordedRequest, ServiceDouble } from '../double/server';
import type { ProcessedDataRow } from './processedData';
import type { RunData, StandIn, WorkflowFile } from './workflowFile';
import { nodeError, sendOptions, succeeded } from './checks';
import { retryCases } from './retryCases';
import { safeSendingCases } from './safeSendingCases';
import { outputOf } from './workflowFile';

export interface ExecutionResult {
	/** Run data of the execution; undefined when n8n printed no execution result. */
	runData?: RunData;
	/** Exit code of `n8n execute`: 0 when the workflow succeeded. */
	exitCode: number | null;
	/** Everything n8n printed (for failures and error messages). */
	log: string;
	/** Requests the double received during this execution. */
	requests: RecordedRequest[];
}

/** The last execution of the case, with every execution and what they left behind. */
export interface CaseResult extends ExecutionResult {
	/** Every execution of the case, in order. */
	executions: ExecutionResult[];
	double: ServiceDouble;
	/** The deduplication histories n8n's database holds for the case's workflow now. */
	processedData(): Promise<ProcessedDataRow[]>;
}

/** One `n8n execute` of a case's workflow. */
export interface CaseExecution {
	/** Before the execution: e.g. faults the double is to answer with. */
	prepare?(double: ServiceDouble): void;
	/** Before the execution: the user changes the workflow and saves it (imported again, same id). */
	edit?(workflow: WorkflowFile): void;
}

export interface E2eCase {
	name: string;
	/** Workflow export, relative to the project root. */
	workflow: string;
	/** Triggers `n8n execute` cannot start from, and what stands in for them (see StandIn). */
	standIns?: Record<string, StandIn>;
	/** Executions of the one imported workflow, one after the other, sharing n8n's database (default: one). */
	executions?: CaseExecution[];
	check(result: CaseResult): void | Promise<void>;
}

const SANDBOX_CREDENTIALS = { mailingPlatformApi: { id: 'mpSandboxCred001', name: 'Mailing Platform Sandbox' } };

function query(request: RecordedRequest, key: string): string[] {
	return request.query.filter(([name]) => name === key).map(([, value]) => value);
}

export const cases: E2eCase[] = [
	{
		name: 'contactField rename',
		workflow: 'test/e2e/workflows/contactFieldRename.json',
		check(result) {
			const runData = succeeded(result);
			assert.deepEqual(outputOf(runData, 'Rename Field'), [
				{ renamed: true, oldName: 'loyalty tier/level', newName: 'loyalty level' },
			]);
			const puts = result.requests.filter((request) => request.method === 'PUT');
			assert.deepEqual(
				puts.map((request) => request.rawPath),
				['contacts/fields/custom/loyalty%20tier%2Flevel/loyalty%20level'],
			);
			assert.ok(result.double.contactFields.customFields.has('loyalty level'));
		},
	},
	{
		name: 'contactField rename of a missing field fails with the service message',
		workflow: 'test/e2e/workflows/contactFieldRenameMissing.json',
		check(result) {
			const error = nodeError(result, 'Rename Field');
			assert.equal(error.message, "Custom field 'no such field' does not exist.");
			assert.equal(error.httpCode, '404');
			assert.equal(result.requests.length, 1);
		},
	},
	{
		name: 'example: shop order to transaction, the order delivered twice and mailed once',
		workflow: 'examples/shop-order-to-transaction.json',
		standIns: { 'Shop Order Webhook': 'pinnedData' },
		// The shop delivers the pinned order, then the same order again.
		executions: [{}, {}],
		check({ executions: [first, second], double }) {
			const only = (execution: ExecutionResult) => {
				const [entry, ...rest] = outputOf(succeeded(execution), 'Send Order Confirmation');
				assert.equal(rest.length, 0, 'one output item per order');
				return entry;
			};
			assert.equal(only(first).queued, true);
			const [post, ...others] = first.requests.filter((request) => request.rawPath.startsWith('transactions'));
			assert.equal(others.length, 0, 'one request for one order');
			assert.equal(post.method, 'POST');
			assert.match(post.contentType ?? '', /^application\/json/);

			assert.deepEqual([only(second).skipped, only(second).deduplicationKey], [true, '100234'], 'the second delivery is skipped by its key');
			assert.deepEqual(second.requests.filter((request) => request.rawPath.startsWith('transactions')), [], 'the second delivery sent nothing');
			assert.equal(double.transactions.queuedOrderIds().filter((id) => id === '100234').length, 1, 'one e-mail for the order');
			for (const execution of [first, second]) assert.equal(outputOf(succeeded(execution), 'Sent').length, 1, 'a queued and a skipped order both end at Sent');
		},
	},
	{
		name: 'example: shop order, a refused order and one of unknown outcome each fail the execution on a branch of its own',
		workflow: 'examples/shop-order-to-transaction.json',
		standIns: { 'Shop Order Webhook': 'pinnedData' },
		executions: [
			// The platform does not queue the order (its key is released), then the order, fixed, goes out but its answer is a gateway's 502.
			// A key of its own: the case before this one sent the pinned order under its id.
			{
				prepare: (double) => double.faults.notQueuedOrders.add('100234'),
				edit: (workflow) => (sendOptions(workflow).deduplicationKey = "={{ $('Shop Order Webhook').item.json.body.id }}-branches"),
			},
			{
				prepare: (double) => {
					double.faults.reset();
					double.faults.failNext(1, 502, { match: 'transactions' });
				},
			},
			// The shop's next delivery of it: skipped, its earlier outcome unknown.
			{},
		],
		check({ executions: [refused, unknown, again] }) {
			const ran = (execution: ExecutionResult) => Object.keys(execution.runData ?? {}).join(', ');
			assert.deepEqual([refused, unknown, again].map((execution) => execution.exitCode !== 0), [true, true, true], `each execution fails (ran: ${[refused, unknown, again].map(ran).join(' | ')})`);
			assert.match(nodeError(refused, 'Not Queued').message ?? '', /^Order 100234 was not queued: .+ Its key was released/);
			assert.equal(refused.runData?.['Check in the Platform'], undefined, 'the refused order is not on the unknown branch');
			assert.match(nodeError(unknown, 'Send Order Confirmation').message ?? '', /502/);
			assert.match(nodeError(again, 'Check in the Platform').message ?? '', /^Order 100234: outcome unknown/);
			assert.equal(again.runData?.['Not Queued'], undefined, 'the order of unknown outcome is not on the refused branch');
			assert.deepEqual(again.requests.filter((request) => request.rawPath.startsWith('transactions')), [], 'the delivery after an unknown outcome sent nothing');
			assert.equal(unknown.requests.filter((request) => request.status === 502).length, 1, 'the order went out once more, answered 502');
		},
	},
	{
		name: 'example: WooCommerce order with mapped fields, Dry Run as shipped, then sent once',
		workflow: 'examples/woocommerce-order-mapped-fields.json',
		standIns: { 'WooCommerce Order Webhook': 'pinnedData' },
		// As the example's note says: try it with Dry Run, switch Dry Run off, run it again and again.
		executions: [{}, { edit: (workflow) => (sendOptions(workflow).dryRun = false) }, {}],
		check({ executions: [dry, real, again], double }) {
			const only = (execution: ExecutionResult) => {
				const [entry, ...rest] = outputOf(succeeded(execution), 'Send Order Confirmation');
				assert.equal(rest.length, 0, 'one output item per order');
				return entry;
			};
			const transactionPosts = (execution: ExecutionResult) => execution.requests.filter((request) => request.rawPath.startsWith('transactions'));
			assert.deepEqual([only(dry).dryRun, transactionPosts(dry).length], [true, 0], 'the shipped Dry Run sends nothing');

			const entry = only(real);
			assert.equal(entry.queued, true, `the order is queued (${JSON.stringify(entry)})`);
			assert.equal(outputOf(succeeded(real), 'Sent').length, 1, 'the queued order ends at Sent');
			assert.equal(outputOf(succeeded(dry), 'Sent').length, 1, 'the dry run ends at Sent, not Not Queued');
			const queued = double.transactions.queued.filter((transaction) => transaction.orderId === '5310');
			assert.equal(queued.length, 1, 'the order reached the service once');
			const content = (queued[0].transaction?.import as { content?: Record<string, unknown> } | undefined)?.content;
			// WooCommerce sends "total": "59.90"; the generic order type takes only numbers there.
			assert.equal(content?.['order.total'], 59.9);
			assert.equal(content?.['order.tax_amount'], 9.57);
			assert.ok(Array.isArray(content?.['order.items']) && content['order.items'].length === 2, 'order.items is the list of line items');

			assert.deepEqual([only(again).skipped, only(again).deduplicationKey, transactionPosts(again).length], [true, '5310', 0], 'the same order again is skipped');
		},
	},
	{
		name: 'example: block report of the last 24 hours',
		workflow: 'examples/daily-block-report.json',
		check(result) {
			const runData = succeeded(result);
			const blocks = outputOf(runData, 'Blocks of the Last 24 Hours');
			// n8n runs no further node when a node returns no items.
			if (blocks.length > 0) {
				const rows = outputOf(runData, 'Spreadsheet Columns');
				assert.equal(rows.length, blocks.length);
				assert.deepEqual(Object.keys(rows[0]), ['Changed At', 'Contact ID', 'E-mail', 'External ID', 'Old Status', 'New Status', 'Reason']);
			}
			const [request] = result.requests.filter((candidate) => candidate.rawPath === 'reports/blocks');
			const [fromDate] = query(request, 'from_date').map(Number);
			const dayAgo = Date.now() - 24 * 3600_000;
			assert.ok(Math.abs(fromDate - dayAgo) < 15 * 60_000, `from_date ${fromDate} is about 24 h ago`);
		},
	},
	{
		name: 'example: check and schedule a mailing',
		workflow: 'examples/check-and-schedule-mailing.json',
		check(result) {
			const runData = succeeded(result);
			assert.equal(outputOf(runData, 'Schedule Mailing').length, 1);
			const calls = result.requests.map((request) => `${request.method} ${request.rawPath.replace(/\d+/, ':id')}`);
			assert.deepEqual(calls, [
				'POST mailings/:id/checks/messagesize',
				'POST mailings/:id/checks/bounce',
				'POST mailings/:id/schedule',
			]);
			const schedule = result.requests[2];
			assert.match(query(schedule, 'date')[0] ?? '', /^\d{4}-\d{2}-\d{2}$/);
			// 09:00 picked in the workflow's zone, sent as the wall clock of the sandbox account's
			// zone (Europe/Berlin): the service must understand the very instant picked.
			const [{ sendAt, mailingId }] = outputOf(runData, 'Mailing to Send') as Array<{ sendAt: string; mailingId: number }>;
			const stored = result.double.mailings.mailings.get(Number(mailingId))?.schedule;
			assert.equal(stored?.at === undefined ? undefined : Date.parse(stored.at), Date.parse(sendAt));
			assert.deepEqual(query(schedule, 'minutes'), ['00']);
		},
	},
	{
		name: 'example: block status changed trigger',
		workflow: 'examples/block-status-changed.json',
		// The poll itself cannot run from the CLI; a report of the same records stands in for it.
		standIns: {
			'Block Status Changed': {
				type: 'n8n-nodes-mailing-platform.mailingPlatform',
				typeVersion: 1,
				parameters: { resource: 'report', operation: 'getBlocks', returnAll: true, simplify: true, filters: {} },
				credentials: SANDBOX_CREDENTIALS,
			},
		},
		check(result) {
			const runData = succeeded(result);
			const blocks = outputOf(runData, 'Block Status Changed');
			const blacklisted = outputOf(runData, 'Blacklisted?', 0);
			const other = outputOf(runData, 'Blacklisted?', 1);
			assert.ok(blocks.length > 0, 'the sandbox has block records');
			assert.equal(blacklisted.length + other.length, blocks.length);
			for (const item of blacklisted) assert.equal(item.reason, 'blacklist');
			for (const item of other) assert.notEqual(item.reason, 'blacklist');
		},
	},
	...safeSendingCases,
	...retryCases,
];
