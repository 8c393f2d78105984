import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';

import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { MailingPlatform } from '../nodes/MailingPlatform/MailingPlatform.node';
import { ServiceDouble } from '../test/double/server';
import { registerNodeType, runWorkflow } from '../test/harness/workflow';
import type { BenchTable } from './run';

const LIMIT = 9_000_000;
const ORDERS = 100_000;
const BASELINE_ORDERS = 5_000;

interface DoubleStats {
	requests: Array<{ bodyBytes: number; status: number }>;
	queuedOrderIds: string[];
}

/**
 * The double runs in a child process, so that process.cpuUsage() in this one measures the
 * node alone and not the service parsing what it receives.
 */
async function serveDouble(): Promise<void> {
	const double = await ServiceDouble.start({ maxLifetimeMs: 60 * 60_000 });
	double.transactions.keepTransactions = false;
	process.on('message', (message: string) => {
		if (message === 'stats') {
			process.send?.({
				requests: double.requestsTo('transactions').map(({ bodyBytes, status }) => ({ bodyBytes, status })),
				queuedOrderIds: double.transactions.queuedOrderIds(),
			});
		} else if (message === 'reset') {
			double.requests.length = 0;
			double.transactions.queued.length = 0;
			process.send?.('reset');
		} else {
			void double.close().then(() => process.exit(0));
		}
	});
	process.send?.({ baseUrl: double.baseUrl, apiKey: double.apiKey });
}

class DoubleProcess {
	private constructor(
		private readonly child: ChildProcess,
		readonly credentials: { baseUrl: string; apiKey: string },
	) {}

	static async start(): Promise<DoubleProcess> {
		const child = fork(__filename, ['serve-double'], { stdio: 'inherit' });
		const credentials = await new Promise<{ baseUrl: string; apiKey: string }>((resolve) =>
			child.once('message', (message) => resolve(message as { baseUrl: string; apiKey: string })),
		);
		return new DoubleProcess(child, credentials);
	}

	async ask<T>(message: 'stats' | 'reset'): Promise<T> {
		const answer = new Promise<T>((resolve) => this.child.once('message', (reply) => resolve(reply as T)));
		this.child.send(message);
		return await answer;
	}

	stop(): void {
		this.child.send('stop');
	}
}

const ORDER_ITEMS = [
	{ title: 'Ceramic mug, blue glaze', articlenumber: 'MUG-001', quantity: 2, price: 12.5, url: 'https://shop.example.com/p/mug-001' },
	{ title: 'Tea towel, linen', articlenumber: 'TOW-017', quantity: 1, price: 8.9, url: 'https://shop.example.com/p/tow-017' },
	{ title: 'Loose leaf tea, 250 g', articlenumber: 'TEA-250', quantity: 3, price: 6.75, url: 'https://shop.example.com/p/tea-250' },
];
const BILLING = { fullname: 'Anna Example', 'address.line1': 'Main Street 1', 'address.line2': '12345 Sampletown', 'method.type': 'invoice' };
const SHIPPING = { fullname: 'Anna Example', 'address.line1': 'Main Street 1', 'address.line2': '12345 Sampletown', method: 'parcel', tracking_url: 'https://track.example.com/?id=0000000000' };
const EMAILS = ['anna@example.com', 'ben@example.com', 'carla@example.com'];

/** One generic-order transaction of about 1 KB; nested parts are shared to keep 100,000 compact. */
function order(index: number): IDataObject {
	return {
		type: 1,
		contact: { email: EMAILS[index % 3] },
		content: {
			'order.id': `ORD-${String(index).padStart(7, '0')}`,
			'order.date_formatted': '21.11.2026',
			'order.currency': 'EUR',
			'order.items': ORDER_ITEMS,
			'order.subtotal': 54.15,
			'order.shipping_fee': 4.9,
			'order.total': 59.05 + index / 100,
			billing: BILLING,
			shipping: SHIPPING,
			'customer.salutation': 'Ms',
			'customer.full_name': 'Anna Example',
			'customer.id': `CUST-${index}`,
		},
	};
}

const SOURCE_TYPE = 'bench.orders';
const MEASURED_TYPE = 'bench.mailingPlatform';
let nodeCpuMicros = 0;
let rssAtNodeStart = 0;
let peakRss = 0;

function registerBenchNodes(): void {
	const source: INodeType = {
		description: {
			displayName: 'Orders',
			name: SOURCE_TYPE,
			group: ['input'],
			version: 1,
			description: 'Generated orders',
			defaults: { name: 'Orders' },
			inputs: [],
			outputs: [NodeConnectionTypes.Main],
			properties: [{ displayName: 'Count', name: 'count', type: 'number', default: 0 }],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const count = this.getNodeParameter('count', 0) as number;
			return [Array.from({ length: count }, (_, index) => ({ json: order(index) }))];
		},
	};
	const inner = new MailingPlatform();
	const measured: INodeType = {
		description: inner.description,
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			// The generator's garbage belongs to the benchmark, not to the node: collect it first.
			(globalThis as { gc?: () => void }).gc?.();
			rssAtNodeStart = process.memoryUsage().rss;
			peakRss = rssAtNodeStart;
			const start = process.cpuUsage();
			const output = await inner.execute.call(this);
			const used = process.cpuUsage(start);
			nodeCpuMicros = used.user + used.system;
			return output;
		},
	};
	registerNodeType(SOURCE_TYPE, source);
	registerNodeType(MEASURED_TYPE, measured);
}

async function runPackage(count: number, credentials: { baseUrl: string; apiKey: string }): Promise<{ wallMs: number; output: number }> {
	const nodes: INode[] = [
		{ id: 'orders', name: 'Orders', type: SOURCE_TYPE, typeVersion: 1, position: [0, 0], parameters: { count } },
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
	const started = performance.now();
	const run = await runWorkflow(nodes, connections, credentials);
	const wallMs = performance.now() - started;
	const task = run.data.resultData.runData['Mailing Platform']?.[0];
	if (task?.error) throw new Error(`the node failed: ${task.error.message}`);
	const items = task?.data?.main[0] ?? [];
	if (items.some((item) => item.json.queued !== true)) throw new Error('not every transaction was queued');
	return { wallMs, output: items.length };
}

/** One POST per order, one after the other, as an HTTP Request node without batching would. */
async function runOnePerItem(count: number, credentials: { baseUrl: string; apiKey: string }): Promise<number> {
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
	agent.destroy();
	return performance.now() - started;
}

function ratio(value: number, digits = 2): string {
	return value.toFixed(digits);
}

export default async function benchmark(): Promise<BenchTable> {
	registerBenchNodes();
	const double = await DoubleProcess.start();
	const gc = (globalThis as { gc?: () => void }).gc;
	try {
		// Warm-up, so that module loading and JIT do not count against the node.
		await runPackage(2_000, double.credentials);
		await double.ask('reset');
		gc?.();

		const rssBefore = process.memoryUsage().rss;
		const sampler = setInterval(() => {
			peakRss = Math.max(peakRss, process.memoryUsage().rss);
		}, 5);
		const packaged = await runPackage(ORDERS, double.credentials);
		clearInterval(sampler);
		peakRss = Math.max(peakRss, process.memoryUsage().rss);
		const cpuMicros = nodeCpuMicros;
		const stats = await double.ask<DoubleStats>('stats');
		gc?.();

		const all = Array.from({ length: ORDERS }, (_, index) => order(index));
		const floorStart = process.cpuUsage();
		const serialized = JSON.stringify(all);
		const floorUsed = process.cpuUsage(floorStart);
		const floorMicros = floorUsed.user + floorUsed.system;
		const totalBytes = Buffer.byteLength(serialized);

		const inOrder =
			stats.queuedOrderIds.length === ORDERS &&
			stats.queuedOrderIds.every((id, index) => id === `ORD-${String(index).padStart(7, '0')}`);
		const sent = stats.requests;
		const minimum = Math.ceil(totalBytes / LIMIT);
		const fills = sent.map((entry) => entry.bodyBytes / LIMIT);
		const fullFills = fills.slice(0, -1);
		const averageFull = fullFills.reduce((sum, fill) => sum + fill, 0) / Math.max(1, fullFills.length);
		const averageAll = fills.reduce((sum, fill) => sum + fill, 0) / Math.max(1, fills.length);

		await double.ask('reset');
		gc?.();
		const batched = await runPackage(BASELINE_ORDERS, double.credentials);
		const batchedRequests = (await double.ask<DoubleStats>('stats')).requests.length;
		await double.ask('reset');
		const perItemMs = await runOnePerItem(BASELINE_ORDERS, double.credentials);
		const perItemRequests = (await double.ask<DoubleStats>('stats')).requests.length;

		const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
		return {
			title: `transaction › create: ${ORDERS.toLocaleString('en-US')} orders of about ${Math.round(totalBytes / ORDERS)} bytes`,
			rows: [
				{ measure: 'serialized size of all transactions', value: mb(totalBytes) },
				{ measure: 'output items, all queued, in input order', value: `${packaged.output.toLocaleString('en-US')}, ${inOrder ? 'yes' : 'NO'}` },
				{ measure: 'requests sent / minimum ceil(bytes / 9,000,000)', value: `${sent.length} / ${minimum}`, goal: 'equal or +1' },
				{ measure: 'largest request body', value: `${Math.max(...sent.map((entry) => entry.bodyBytes)).toLocaleString('en-US')} bytes`, goal: '<= 9,000,000' },
				{ measure: 'average fill of requests except the last', value: ratio(averageFull, 3), goal: '>= 0.97' },
				{ measure: 'average fill of all requests', value: ratio(averageAll, 3) },
				{ measure: 'node CPU time', value: `${(cpuMicros / 1000).toFixed(0)} ms` },
				{ measure: 'one JSON.stringify of the array (floor)', value: `${(floorMicros / 1000).toFixed(0)} ms` },
				{ measure: 'node CPU / JSON.stringify', value: ratio(cpuMicros / floorMicros), goal: '<= 2' },
				{ measure: 'wall time of the node run', value: `${(packaged.wallMs / 1000).toFixed(2)} s` },
				{ measure: 'RSS before the workflow / when the node starts (input held)', value: `${mb(rssBefore)} / ${mb(rssAtNodeStart)}` },
				{ measure: 'peak RSS while the node runs', value: mb(peakRss) },
				{ measure: 'peak RSS / serialized size', value: ratio(peakRss / totalBytes), goal: '<= 4' },
				{ measure: 'peak RSS growth during the node / serialized size', value: ratio((peakRss - rssAtNodeStart) / totalBytes) },
				{ measure: `${BASELINE_ORDERS.toLocaleString('en-US')} orders: requests, one per item / package`, value: `${perItemRequests} / ${batchedRequests} = ${ratio(perItemRequests / batchedRequests, 0)}` },
				{ measure: `${BASELINE_ORDERS.toLocaleString('en-US')} orders: wall time, one per item / package`, value: `${(perItemMs / 1000).toFixed(2)} s / ${(batched.wallMs / 1000).toFixed(2)} s = ${ratio(perItemMs / batched.wallMs, 1)}` },
			],
		};
	} finally {
		double.stop();
	}
}

if (require.main === module && process.argv[2] === 'serve-double') void serveDouble();
