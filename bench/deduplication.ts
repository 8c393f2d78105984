import type { INode } from 'n8n-workflow';

import { MailingPlatform } from '../nodes/MailingPlatform/MailingPlatform.node';
import { keyStoreIdle } from '../nodes/MailingPlatform/helpers/keyStore';
import { HARNESS_NODE, processedData } from '../test/harness/processedData';
import { registerNodeType, runWorkflow } from '../test/harness/workflow';
import { DoubleProcess } from './doubleProcess';
import type { CallMeasurement } from './measure';
import { collectGarbage, measureCall } from './measure';
import { ORDERS_NODE_TYPE, orderId, ordersNode } from './orders';
import type { Measurements, Settings } from './scenario';
import { checkHistoryFull, checkKeysKept, watchStore } from './storeChecks';

const NODE_TYPE = 'bench.mailingPlatform';

/** What every round works against: the double, and the key's history size (full from the start). */
interface Setup {
	double: DoubleProcess;
	history: number;
}

/** Every execution sends orders never sent before, so that no key is skipped. */
let nextOrder = 0;

/** Main-thread CPU spent inside the store's calls (read, parse, check, serialize, write). */
let storeCpuMs = 0;

function measureStore(): void {
	const check = processedData.checkProcessedAndRecord.bind(processedData);
	processedData.checkProcessedAndRecord = async (...args) => {
		const { result, measurement } = await measureCall(async () => await check(...args));
		storeCpuMs += measurement.mainThreadCpuMs;
		return result;
	};
	const remove = processedData.removeProcessed.bind(processedData);
	processedData.removeProcessed = async (...args) => {
		const { measurement } = await measureCall(async () => await remove(...args));
		storeCpuMs += measurement.mainThreadCpuMs;
	};
}

/** One execution of Orders -> Mailing Platform (transaction › create, JSON input); every transaction must be queued. */
async function execute(count: number, withKey: boolean, { double, history }: Setup): Promise<CallMeasurement> {
	const keyOptions = { deduplicationKey: '={{ $json.content["order.id"] }}', deduplicationHistorySize: history };
	const nodes: INode[] = [
		{ id: 'orders', name: 'Orders', type: ORDERS_NODE_TYPE, typeVersion: 1, position: [0, 0], parameters: { count, first: nextOrder } },
		{
			id: HARNESS_NODE.nodeId,
			name: 'Mailing Platform',
			type: NODE_TYPE,
			typeVersion: 1,
			position: [200, 0],
			parameters: { resource: 'transaction', operation: 'create', inputMode: 'json', options: withKey ? keyOptions : {} },
			credentials: { mailingPlatformApi: { id: 'credential', name: 'Mailing Platform account' } },
		},
	];
	nextOrder += count;
	const connections = { Orders: { main: [[{ node: 'Mailing Platform', type: 'main' as const, index: 0 }]] } };
	const { result: run, measurement } = await measureCall(async () => await runWorkflow(nodes, connections, double.credentials));
	const task = run.data.resultData.runData['Mailing Platform']?.[0];
	if (task?.error) throw new Error(`the node failed: ${task.error.message}`);
	const items = task?.data?.main[0] ?? [];
	if (items.length !== count || items.some((item) => item.json.queued !== true)) throw new Error('not every transaction was queued');
	return measurement;
}

interface Totals {
	wallMs: number;
	cpuMs: number;
	storeCpuMs: number;
	executions: number;
	orders: number;
	/** Requests the double received. */
	requests: number;
	/** Calls of n8n's store for the node (checkProcessedAndRecord, removeProcessed): each reads and rewrites its whole row. */
	storeCalls: number;
}

const empty = (): Totals => ({ wallMs: 0, cpuMs: 0, storeCpuMs: 0, executions: 0, orders: 0, requests: 0, storeCalls: 0 });

/**
 * `executions` executions of `count` orders each, added to `totals`. With the key, the store
 * must have recorded every order's key and mark and the history must still be full; without,
 * the node must not have called the store. How many calls that took is measured, not assumed:
 * it follows how the node sends (keys are claimed per request).
 */
async function round(totals: Totals, executions: number, count: number, withKey: boolean, setup: Setup): Promise<void> {
	await setup.double.reset();
	const storeUse = watchStore();
	const storeBefore = storeCpuMs;
	const firstOrder = nextOrder;
	for (let index = 0; index < executions; index++) {
		if (count > 1) collectGarbage();
		const { wallMs, mainThreadCpuMs } = await execute(count, withKey, setup);
		totals.wallMs += wallMs;
		totals.cpuMs += mainThreadCpuMs;
		totals.executions++;
	}
	// The keys' confirmation rounds go on after the executions (their store CPU counts, their wait does not).
	await keyStoreIdle();
	totals.storeCpuMs += storeCpuMs - storeBefore;
	totals.orders += nextOrder - firstOrder;
	totals.requests += (await setup.double.stats()).requests.length;
	const store = storeUse();
	totals.storeCalls += store.records + store.removals;
	const label = `${withKey ? 'with' : 'without'} the key, ${executions} executions of ${count} order${count === 1 ? '' : 's'}`;
	if (withKey) checkKeysKept(label, Array.from({ length: nextOrder - firstOrder }, (_, index) => orderId(firstOrder + index)), store, setup.history);
	else if (store.records + store.removals > 0) throw new Error(`${label}: ${store.records + store.removals} calls of n8n's store`);
	else checkHistoryFull(label, setup.history);
}

/**
 * `executions` executions with the Deduplication Key and as many without, in rounds alternating
 * A B B A so that drift over the run falls on both alike, after a warm-up round of each.
 */
async function compare(executions: number, perRound: number, count: number, setup: Setup): Promise<{ with: Totals; without: Totals }> {
	const totals = { with: empty(), without: empty() };
	await round(empty(), perRound, count, true, setup);
	await round(empty(), perRound, count, false, setup);
	collectGarbage();
	for (let index = 0; index < executions / perRound; index++) {
		const order = index % 2 === 0 ? [true, false] : [false, true];
		for (const withKey of order) await round(withKey ? totals.with : totals.without, perRound, count, withKey, setup);
	}
	return totals;
}

/**
 * The Deduplication Key's cost against a full history of `history` keys: `executions`
 * single-order executions each way, `perRound` at a time, and `batchRounds` executions of
 * `batchOrders` orders each way.
 */
export async function deduplication(settings: Settings): Promise<Measurements> {
	const { executions, perRound, batchOrders, batchRounds, history } = settings;
	if (executions % perRound !== 0) throw new Error('--executions must be a multiple of --perRound: rounds alternate in pairs');
	// The check of a batch's keys looks for its first order's: all its keys and marks must fit the history.
	if (batchOrders > history) throw new Error('--batchOrders must not exceed --history');
	registerNodeType(ORDERS_NODE_TYPE, ordersNode);
	registerNodeType(NODE_TYPE, new MailingPlatform());
	measureStore();
	// A full history: the node keeps each key beside a mark of its queued transaction.
	processedData.seed(Array.from({ length: 2 * history }, (_, index) => `earlier-${index}`));
	const double = await DoubleProcess.start('transactionsDouble');
	try {
		const single = await compare(executions, perRound, 1, { double, history });
		const batch = await compare(batchRounds, 1, batchOrders, { double, history });
		const figures = (name: string, totals: Totals) => ({
			[`${name}WallMs`]: totals.wallMs / totals.executions,
			[`${name}CpuMs`]: totals.cpuMs / totals.executions,
			[`${name}StoreCpuMs`]: totals.storeCpuMs / totals.executions,
			[`${name}RequestsPerExecution`]: totals.requests / totals.executions,
			[`${name}StoreCallsPerOrder`]: totals.storeCalls / totals.orders,
			[`${name}StoreCallsPerRequest`]: totals.storeCalls / totals.requests,
		});
		return {
			...settings,
			...figures('singleWith', single.with), ...figures('singleWithout', single.without), ...figures('batchWith', batch.with), ...figures('batchWithout', batch.without),
		};
	} finally {
		double.stop();
	}
}
