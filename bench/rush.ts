// First: this project's code and n8n's nodes must load the same n8n-workflow and n8n-core.
import { n8nModulesInUse } from './n8nModules';

import { shopOrders, type ShopOrder } from '../test/peak/delivery';
import { HTTP_REQUEST_NODE } from '../test/peak/httpRequestNode';
import { ORDER_TYPE } from '../test/peak/workflows';
import type { CredentialValues } from '../test/harness/workflow';
import { registerNodeType } from '../test/harness/workflow';
import { executeOne, loadN8nNode } from './commonFlow';
import { DoubleProcess, type DoubleStats } from './doubleProcess';
import { collectGarbage, measureCall, processCpuMs } from './measure';
import type { Measurements, Settings } from './scenario';

/** Transaction › Create, and n8n's HTTP Request node POSTing the same transaction: one request per execution. */
export const RUSH_FLOWS = ['create', 'httpRequest'] as const;
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
async function rush(label: string, flow: RushFlow, orders: ShopOrder[], service: CredentialValues, double: DoubleProcess): Promise<RushFigures> {
	await double.reset();
	collectGarbage();
	const { result: results, measurement } = await measureCall(async () => await Promise.allSettled(orders.map(async (order) => await executeOne(flow, order, service, 0))));
	const cpuBeforeGc = processCpuMs();
	collectGarbage();
	const closingGcCpuMs = processCpuMs() - cpuBeforeGc;

	const failures = results.filter((result) => result.status === 'rejected');
	if (failures.length > 0) throw new Error(`${label}: ${failures.length} of ${orders.length} executions failed, the first: ${String(failures[0].reason)}`);
	const stats = await double.stats();
	checkQueuedOnce(label, orders, stats);
	return {
		posts: stats.posts ?? 0,
		cpuMs: measurement.processCpuMs + closingGcCpuMs,
		closingGcCpuMs,
		mainThreadCpuMs: measurement.mainThreadCpuMs,
		wallMs: measurement.wallMs,
		waitingForCpuMs: measurement.mainThreadWaitingForCpuMs,
		mostInFlight: stats.mostInFlight ?? 0,
	};
}

/** Throws unless one order through Create and through the HTTP Request node made the same request, byte for byte. */
async function checkSameRequest(service: CredentialValues, double: DoubleProcess): Promise<void> {
	await double.reset();
	const [probe] = shopOrders('PROBE', 1);
	for (const flow of RUSH_FLOWS) await executeOne(flow, probe, service, 0);
	const stats = await double.stats();
	const [first, second] = stats.requests.map((request, index) => `${request.path} ${stats.bodyDigests?.[index]}`);
	if (stats.requests.length !== 2 || first !== second) throw new Error(`Create and the HTTP Request node sent different requests: ${first} / ${second}`);
}

/**
 * The rush: `orders` one-order executions of each flow started at once against a double
 * answering every request after `latencyMs`, in `rounds` rounds, the flows' order reversed every
 * round, after one unmeasured rush of each of the same size: after rushes of 200, the first
 * measured rush (always Create's) took 1.01 to 1.5 times the CPU of Create's second, in five runs.
 */
export async function rushOfOrders(settings: Settings): Promise<Measurements> {
	const { orders, latencyMs, rounds } = settings;
	const httpRequest = loadN8nNode('HttpRequest/HttpRequest.node.js', 'HttpRequest', HTTP_REQUEST_NODE.typeVersion);
	registerNodeType(HTTP_REQUEST_NODE.type, httpRequest.node);
	const versions = n8nModulesInUse(httpRequest.file);
	console.error(`rush: n8n ${versions.n8n}'s n8n-core ${versions.n8nCore} and n8n-workflow ${versions.n8nWorkflow} for both nodes`);

	const double = await DoubleProcess.start('rushDouble', [String(latencyMs), `${ORDER_TYPE.id}=${ORDER_TYPE.name}`]);
	const service: CredentialValues = { ...double.credentials, platformTimeZone: 'Europe/Berlin' };
	try {
		await checkSameRequest(service, double);
		for (const flow of RUSH_FLOWS) await rush(`${flow} warm-up`, flow, shopOrders(`${flow}-WARM`, orders), service, double);

		const totals = Object.fromEntries(RUSH_FLOWS.map((flow) => [flow, { posts: 0, cpuMs: 0, closingGcCpuMs: 0, mainThreadCpuMs: 0, wallMs: 0, waitingForCpuMs: 0, mostInFlight: 0 }])) as Record<RushFlow, RushFigures>;
		for (let round = 0; round < rounds; round++) {
			for (const flow of round % 2 === 0 ? RUSH_FLOWS : [...RUSH_FLOWS].reverse()) {
				const label = `${flow} rush ${round + 1}`;
				const figures = await rush(label, flow, shopOrders(`${flow}-R${round + 1}`, orders), service, double);
				console.error(`${label}: ${figures.posts} POSTs, ${figures.cpuMs.toFixed(0)} ms CPU (${figures.mainThreadCpuMs.toFixed(0)} ms of it the main thread), ${figures.wallMs.toFixed(0)} ms wall (${figures.waitingForCpuMs.toFixed(0)} ms of it waiting for a CPU), at most ${figures.mostInFlight} in flight`);
				const total = totals[flow];
				total.posts += figures.posts;
				total.cpuMs += figures.cpuMs;
				total.closingGcCpuMs += figures.closingGcCpuMs;
				total.wallMs += figures.wallMs;
				total.waitingForCpuMs += figures.waitingForCpuMs;
				total.mostInFlight = Math.max(total.mostInFlight, figures.mostInFlight);
			}
		}

		const measured = orders * rounds;
		const measurements: Measurements = { orders, latencyMs, rounds };
		for (const flow of RUSH_FLOWS) {
			const { posts, cpuMs, closingGcCpuMs, wallMs, waitingForCpuMs, mostInFlight } = totals[flow];
			Object.assign(measurements, {
				[`${flow}PostsPerOrder`]: posts / measured,
				[`${flow}CpuMsPerOrder`]: cpuMs / measured,
				[`${flow}ClosingGcCpuMsPerOrder`]: closingGcCpuMs / measured,
				[`${flow}WallMsPerRush`]: wallMs / rounds,
				[`${flow}WaitingForCpuMsPerRush`]: waitingForCpuMs / rounds,
				[`${flow}MostInFlight`]: mostInFlight,
			});
		}
		return measurements;
	} finally {
		double.stop();
	}
}
