// First: this project's code and n8n's nodes must load the same n8n-workflow and n8n-core.
import { n8nModulesInUse } from './n8nModules';
import { keyStoreIdle } from '../nodes/MailingPlatform/helpers/keyStore';

import { shopOrders, type ShopOrder } from '../test/peak/delivery';
import { HTTP_REQUEST_NODE } from '../test/peak/httpRequestNode';
import { ORDER_TYPE } from '../test/peak/workflows';
import type { CredentialValues } from '../test/harness/workflow';
import { registerNodeType } from '../test/harness/workflow';
import { executeOne, loadN8nNode, seedFullHistory } from './commonFlow';
import { DoubleProcess, type DoubleStats } from './doubleProcess';
import { collectGarbage, measureCall, processCpuMs } from './measure';
import { checkHistoryFull, checkKeysKept, watchStore } from './storeChecks';
import type { Measurements, Settings } from './scenario';

/**
 * Transaction › Create, the same with the order id as Deduplication Key (its history full), and
 * n8n's HTTP Request node POSTing the same transaction: one request per execution.
 */
export const RUSH_FLOWS = ['create', 'createKeyed', 'httpRequest'] as const;
type RushFlow = (typeof RUSH_FLOWS)[number];

interface RushFigures {
	/** POST requests the double received during the rush, of any path. */
	posts: number;
	/** CPU of all threads of this process from the rush's start to the end of the full GC after it. */
	cpuMs: number;
	/** Of `cpuMs`, the full GC after the rush. */
	closingGcCpuMs: number;
	/** Of `cpuMs` less the closing GC, the main thread's. */
	mainThreadCpuMs: number;
	/** From starting the first execution to the end of the last. */
	wallMs: number;
	/** Of `wallMs`, the time this process's main thread was ready to run but every CPU was busy. */
	waitingForCpuMs: number;
	mostInFlight: number;
	/** Calls of n8n's store the node made: checkProcessedAndRecord, removeProcessed, and the entries handed to them. */
	storeRecords: number;
	storeRemovals: number;
	storeEntries: number;
}

/** Throws unless every request was a POST answered 200 and the double queued each order exactly once, and no other. */
function checkQueuedOnce(label: string, orders: ShopOrder[], stats: DoubleStats): void {
	const times = new Map(orders.map((order) => [order.id, 0]));
	let foreign = 0;
	for (const id of stats.queuedOrderIds ?? []) {
		const seen = times.get(id);
		if (seen === undefined) foreign++;
		else times.set(id, seen + 1);
	}
	const missing = [...times.values()].filter((count) => count === 0).length;
	const repeated = [...times.values()].filter((count) => count > 1).length;
	const failed = stats.requests.filter((request) => request.status !== 200).length;
	const notPosts = stats.requests.length - (stats.posts ?? 0);
	if (missing + repeated + foreign + failed + notPosts > 0) {
		throw new Error(
			`${label}: of ${orders.length} orders ${missing} were not queued and ${repeated} were queued more than once; ` +
				`${foreign} queued orders were not this rush's; of ${stats.requests.length} requests ${failed} were not answered 200 and ${notPosts} were not POSTs`,
		);
	}
}

/**
 * Starts one execution per order at once, each its own WorkflowExecute run, and waits for all:
 * the CPU of all threads of this process from the start until a full GC after the last one
 * ended (so the rush's garbage is collected within its figure, and what ran before was
 * collected before it), the wall time, and what the double received.
 */
async function rush(label: string, flow: RushFlow, orders: ShopOrder[], service: CredentialValues, double: DoubleProcess, history: number): Promise<RushFigures> {
	await double.reset();
	const storeUse = watchStore();
	collectGarbage();
	const { result: results, measurement } = await measureCall(async () => await Promise.allSettled(orders.map(async (order) => await executeOne(flow, order, service, history))));
	// The keys' confirmation rounds go on after the executions: their CPU counts, their time does not.
	const cpuBeforeRounds = processCpuMs();
	await keyStoreIdle();
	const roundsCpuMs = processCpuMs() - cpuBeforeRounds;
	const cpuBeforeGc = processCpuMs();
	collectGarbage();
	const closingGcCpuMs = processCpuMs() - cpuBeforeGc;

	const failures = results.filter((result) => result.status === 'rejected');
	if (failures.length > 0) throw new Error(`${label}: ${failures.length} of ${orders.length} executions failed, the first: ${String(failures[0].reason)}`);
	const stats = await double.stats();
	checkQueuedOnce(label, orders, stats);
	const store = storeUse();
	if (flow === 'createKeyed') checkKeysKept(label, orders.map((order) => order.id), store, history);
	else if (store.records + store.removals > 0) throw new Error(`${label}: a flow without a key made ${store.records + store.removals} calls of n8n's store`);
	return {
		posts: stats.posts ?? 0,
		cpuMs: measurement.processCpuMs + roundsCpuMs + closingGcCpuMs,
		closingGcCpuMs,
		mainThreadCpuMs: measurement.mainThreadCpuMs,
		wallMs: measurement.wallMs,
		waitingForCpuMs: measurement.mainThreadWaitingForCpuMs,
		mostInFlight: stats.mostInFlight ?? 0,
		storeRecords: store.records,
		storeRemovals: store.removals,
		storeEntries: store.entries,
	};
}

/** Throws unless one order through each flow made the same request, byte for byte. */
async function checkSameRequest(service: CredentialValues, double: DoubleProcess, history: number): Promise<void> {
	await double.reset();
	const [probe] = shopOrders('PROBE', 1);
	for (const flow of RUSH_FLOWS) await executeOne(flow, probe, service, history);
	const stats = await double.stats();
	const requests = stats.requests.map((request, index) => `${request.path} ${stats.bodyDigests?.[index]}`);
	if (requests.length !== RUSH_FLOWS.length || new Set(requests).size !== 1) throw new Error(`${RUSH_FLOWS.join(', ')} sent different requests: ${requests.join(' / ')}`);
}

/**
 * The rush: `orders` one-order executions of each flow started at once against a double
 * answering every request after `latencyMs`, in `rounds` rounds, the flows' order reversed every
 * round, after one unmeasured rush of each of the same size: after rushes of 200, the first
 * measured rush (always Create's) took 1.01 to 1.5 times the CPU of Create's second, in five runs.
 * The node's key history is full (`history` keys and their marks) before every rush and stays
 * full: each keyed rush's keys push out as many of the oldest entries.
 */
export async function rushOfOrders(settings: Settings): Promise<Measurements> {
	const { orders, latencyMs, rounds, history } = settings;
	if (!(history >= 1)) throw new Error('the rush needs --history of at least 1: the keyed flow runs against a full history');
	const httpRequest = loadN8nNode('HttpRequest/HttpRequest.node.js', 'HttpRequest', HTTP_REQUEST_NODE.typeVersion);
	registerNodeType(HTTP_REQUEST_NODE.type, httpRequest.node);
	const versions = n8nModulesInUse(httpRequest.file);
	console.error(`rush: n8n ${versions.n8n}'s n8n-core ${versions.n8nCore} and n8n-workflow ${versions.n8nWorkflow} for every node`);
	seedFullHistory(history);
	checkHistoryFull('before the rushes', history);

	const double = await DoubleProcess.start('rushDouble', [String(latencyMs), `${ORDER_TYPE.id}=${ORDER_TYPE.name}`]);
	const service: CredentialValues = { ...double.credentials, platformTimeZone: 'Europe/Berlin' };
	try {
		await checkSameRequest(service, double, history);
		for (const flow of RUSH_FLOWS) await rush(`${flow} warm-up`, flow, shopOrders(`${flow}-WARM`, orders), service, double, history);

		const totals = Object.fromEntries(RUSH_FLOWS.map((flow) => [flow, [] as RushFigures[]])) as Record<RushFlow, RushFigures[]>;
		for (let round = 0; round < rounds; round++) {
			for (const flow of round % 2 === 0 ? RUSH_FLOWS : [...RUSH_FLOWS].reverse()) {
				const label = `${flow} rush ${round + 1}`;
				const figures = await rush(label, flow, shopOrders(`${flow}-R${round + 1}`, orders), service, double, history);
				console.error(
					`${label}: ${figures.posts} POSTs, ${figures.storeRecords} + ${figures.storeRemovals} store calls (${figures.storeEntries} entries), ` +
						`${figures.cpuMs.toFixed(0)} ms CPU (${figures.mainThreadCpuMs.toFixed(0)} ms of it the main thread), ` +
						`${figures.wallMs.toFixed(0)} ms wall (${figures.waitingForCpuMs.toFixed(0)} ms of it waiting for a CPU), at most ${figures.mostInFlight} in flight`,
				);
				totals[flow].push(figures);
			}
		}

		const measured = orders * rounds;
		const measurements: Measurements = { orders, latencyMs, rounds, history };
		for (const flow of RUSH_FLOWS) {
			const sum = (figure: keyof RushFigures) => totals[flow].reduce((total, figures) => total + figures[figure], 0);
			Object.assign(measurements, {
				[`${flow}PostsPerOrder`]: sum('posts') / measured,
				[`${flow}StoreCallsPerOrder`]: (sum('storeRecords') + sum('storeRemovals')) / measured,
				[`${flow}StoreRemovalsPerOrder`]: sum('storeRemovals') / measured,
				[`${flow}StoreEntriesPerOrder`]: sum('storeEntries') / measured,
				[`${flow}CpuMsPerOrder`]: sum('cpuMs') / measured,
				[`${flow}ClosingGcCpuMsPerOrder`]: sum('closingGcCpuMs') / measured,
				[`${flow}WallMsPerRush`]: sum('wallMs') / rounds,
				[`${flow}WaitingForCpuMsPerRush`]: sum('waitingForCpuMs') / rounds,
				[`${flow}MostInFlight`]: Math.max(...totals[flow].map((figures) => figures.mostInFlight)),
			});
		}
		return measurements;
	} finally {
		double.stop();
	}
}
