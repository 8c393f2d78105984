import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

import type { INode } from 'n8n-workflow';

import { MailingPlatform } from '../nodes/MailingPlatform/MailingPlatform.node';
import type { CredentialValues } from '../test/harness/workflow';
import { registerNodeType, runWorkflow } from '../test/harness/workflow';
import { DoubleProcess } from './doubleProcess';
import { collectGarbage, mainThreadCpuMs, measuredNode, peakRssBytes } from './measure';
import { ORDERS_NODE_TYPE, order, orderId, ordersNode } from './orders';
import type { Measurements } from './scenario';

export const ORDERS = 100_000;
export const PER_ITEM_ORDERS = 5_000;
export const LIMIT = 9_000_000;

const MEASURED_TYPE = 'bench.mailingPlatform';

function registerNodes() {
	const measured = measuredNode(new MailingPlatform());
	registerNodeType(ORDERS_NODE_TYPE, ordersNode);
	registerNodeType(MEASURED_TYPE, measured.node);
	return measured;
}

/** Orders -> Mailing Platform (transaction › create, JSON input) as a real workflow; every transaction must be queued. */
async function runPackage(count: number, credentials: CredentialValues): Promise<void> {
	const nodes: INode[] = [
		{ id: 'orders', name: 'Orders', type: ORDERS_NODE_TYPE, typeVersion: 1, position: [0, 0], parameters: { count } },
		{
			id: 'node',
			name: 'Mailing Platform',
			type: MEASURED_TYPE,
			typeVersion: 1,
			position: [200, 0],
			parameters: { resource: 'transaction', operation: 'create', inputMode: 'json' },
			credentials: { mailingPlatformApi: { id: 'credential', name: 'Mailing Platform account' } },
		},
	];
	const connections = { Orders: { main: [[{ node: 'Mailing Platform', type: 'main' as const, index: 0 }]] } };
	const run = await runWorkflow(nodes, connections, credentials);
	const task = run.data.resultData.runData['Mailing Platform']?.[0];
	if (task?.error) throw new Error(`the node failed: ${task.error.message}`);
	const items = task?.data?.main[0] ?? [];
	if (items.length !== count || items.some((item) => item.json.queued !== true)) throw new Error('not every transaction was queued');
}

/** 100,000 orders through the node: requests, fill, main-thread CPU against one JSON.stringify, memory. */
export async function transactions(): Promise<Measurements> {
	const measured = registerNodes();
	const double = await DoubleProcess.start('transactionsDouble');
	try {
		// Warm-up, so that module loading and JIT do not count against the node.
		await runPackage(2_000, double.credentials);
		await double.reset();
		const peakRssBeforeRun = peakRssBytes();
		await runPackage(ORDERS, double.credentials);
		// The kernel's high-water mark: synchronous work inside execute() is seen too.
		const peakRss = peakRssBytes();
		const run = measured.last();
		// maxRSS only rises: a rise inside execute() makes its end value the peak of execute() itself.
		if (run.peakRssAtEndBytes <= run.peakRssAtStartBytes) throw new Error('execute() reached no new peak RSS: its growth cannot be read');
		const stats = await double.stats();

		collectGarbage();
		const all = Array.from({ length: ORDERS }, (_, index) => order(index));
		collectGarbage();
		const cpuBefore = mainThreadCpuMs();
		const serialized = JSON.stringify(all);
		const stringifyCpuMs = mainThreadCpuMs() - cpuBefore;
		const serializedBytes = Buffer.byteLength(serialized, 'utf8');

		const bodies = stats.requests.map((entry) => entry.bodyBytes);
		// Every body is `[` + transactions joined by `,` + `]`: together they hold the serialized
		// array plus one bracket pair per extra request, minus the commas between requests.
		if (bodies.reduce((sum, bytes) => sum + bytes, 0) !== serializedBytes + bodies.length - 1) {
			throw new Error('the request bodies do not add up to the serialized orders');
		}
		const ids = stats.queuedOrderIds ?? [];
		const inOrder = ids.length === ORDERS && ids.every((id, index) => id === orderId(index));
		const fills = bodies.map((bytes) => bytes / LIMIT);
		const average = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
		return {
			serializedBytes,
			queuedInOrder: inOrder ? 1 : 0,
			requests: bodies.length,
			largestBody: Math.max(...bodies),
			fillExceptLast: average(fills.slice(0, -1)),
			fillAll: average(fills),
			executeMainThreadCpuMs: run.mainThreadCpuMs,
			executeProcessCpuMs: run.processCpuMs,
			stringifyCpuMs,
			executeWallMs: run.wallMs,
			doubleCpuMs: stats.cpuMs,
			rssAtStart: run.rssAtStartBytes,
			peakRssInExecute: run.peakRssAtEndBytes,
			peakRssBeforeRun,
			peakRss,
		};
	} finally {
		double.stop();
	}
}

/** One POST per order, one after the other, as an HTTP Request node without batching would. */
async function postOnePerItem(count: number, credentials: CredentialValues): Promise<number> {
	const agent = new Agent({ keepAlive: true });
	const url = new URL(`${credentials.baseUrl}/transactions`);
	const authorization = `Basic ${Buffer.from(credentials.apiKey).toString('base64')}`;
	const started = performance.now();
	for (let index = 0; index < count; index++) {
		const body = JSON.stringify([order(index)]);
		await new Promise<void>((resolve, reject) => {
			const outgoing = request(
				url,
				{ method: 'POST', agent, headers: { Authorization: authorization, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
				(response) => {
					response.resume();
					response.on('end', () => (response.statusCode === 200 ? resolve() : reject(new Error(`status ${response.statusCode}`))));
				},
			);
			outgoing.on('error', reject);
			outgoing.end(body);
		});
	}
	const wallMs = performance.now() - started;
	agent.destroy();
	return wallMs;
}

/** 5,000 orders: the node's batching against one request per item, both warmed up. */
export async function transactionsPerItem(): Promise<Measurements> {
	const measured = registerNodes();
	const double = await DoubleProcess.start('transactionsDouble');
	try {
		await runPackage(500, double.credentials);
		await postOnePerItem(500, double.credentials);
		await double.reset();
		await runPackage(PER_ITEM_ORDERS, double.credentials);
		const packageWallMs = measured.last().wallMs;
		const packageRequests = (await double.stats()).requests.length;
		await double.reset();
		const perItemWallMs = await postOnePerItem(PER_ITEM_ORDERS, double.credentials);
		const perItemRequests = (await double.stats()).requests.length;
		return { packageWallMs, packageRequests, perItemWallMs, perItemRequests };
	} finally {
		double.stop();
	}
}
