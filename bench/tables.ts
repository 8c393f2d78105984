import { commonFlowTable } from './commonFlowTable';
import { count, fixed, megabytes, ms, seconds, tenthsMs } from './format';
import { LATENCY_MS, PAGE_SIZE } from './reports';
import type { Measurements } from './scenario';
import { LIMIT, ORDERS, PER_ITEM_ORDERS } from './transactions';

/** One run of every scenario, each measured in its own fresh process. */
export type RunMeasurements = Record<string, Measurements>;

export interface Row {
	measure: string;
	value: (run: RunMeasurements) => number;
	format: (value: number) => string;
	goal?: string;
}

export interface Table {
	title: string;
	rows: Row[];
}

/** One workload of the deduplication scenario, with the key against without, per execution. */
function keyRows(workload: string, executions: string, name: 'single' | 'batch', format: (value: number) => string): Row[] {
	const figure = (run: RunMeasurements, measure: string) => run.deduplication[`${name}${measure}`];
	return [
		{ measure: `${workload} (${executions}): wall time per execution, without the key`, value: (run) => figure(run, 'WithoutWallMs'), format },
		{ measure: `${workload}: wall time per execution, with the key`, value: (run) => figure(run, 'WithWallMs'), format },
		{ measure: `${workload}: main-thread CPU per execution, without the key`, value: (run) => figure(run, 'WithoutCpuMs'), format },
		{ measure: `${workload}: main-thread CPU per execution, with the key`, value: (run) => figure(run, 'WithCpuMs'), format },
		{ measure: `${workload}: of which inside n8n's store (read, parse, check, serialize, write)`, value: (run) => figure(run, 'WithStoreCpuMs'), format },
		{ measure: `${workload}: requests the double received per execution, with the key`, value: (run) => figure(run, 'WithRequestsPerExecution'), format: fixed(2) },
		{
			measure: `${workload}: calls of n8n's store per order, with the key (each reads and rewrites the node's whole row)`,
			value: (run) => figure(run, 'WithStoreCallsPerOrder'),
			format: fixed(4),
		},
		{ measure: `${workload}: calls of n8n's store per request, with the key`, value: (run) => figure(run, 'WithStoreCallsPerRequest'), format: fixed(2) },
		{ measure: `${workload}: with / without the key, wall time`, value: (run) => figure(run, 'WithWallMs') / figure(run, 'WithoutWallMs'), format: fixed(2), goal: '≤ 1.2' },
		{ measure: `${workload}: with / without the key, main-thread CPU`, value: (run) => figure(run, 'WithCpuMs') / figure(run, 'WithoutCpuMs'), format: fixed(2), goal: '≤ 1.2' },
	];
}

/** The tables `npm run bench` prints; labels are built from the first run (its data never varies). */
export function tables(first: RunMeasurements): Table[] {
	const orders = first.transactions;
	const minimum = Math.ceil(orders.serializedBytes / LIMIT);
	const report = first.reports;
	const pages = Math.ceil(report.blocks / PAGE_SIZE);
	const concurrency = first.pagedReadConcurrent.concurrency;
	const keyed = first.deduplication;
	return [
		{
			title: `Transaction › Create: ${count(ORDERS)} orders of about ${count(orders.serializedBytes / ORDERS)} bytes (${megabytes(orders.serializedBytes)} as one JSON array)`,
			rows: [
				{ measure: 'output items all queued, in input order (1 = yes)', value: (run) => run.transactions.queuedInOrder, format: count, goal: '1' },
				{ measure: `requests sent (minimum ceil(bytes / 9,000,000) = ${minimum})`, value: (run) => run.transactions.requests, format: count, goal: `${minimum} or ${minimum + 1}` },
				{ measure: 'largest request body, bytes', value: (run) => run.transactions.largestBody, format: count, goal: '≤ 9,000,000' },
				{ measure: 'average fill of the requests but the last', value: (run) => run.transactions.fillExceptLast, format: fixed(3), goal: '≥ 0.97' },
				{ measure: 'main-thread CPU of execute()', value: (run) => run.transactions.executeMainThreadCpuMs, format: ms },
				{ measure: 'main-thread CPU of one JSON.stringify of the same orders', value: (run) => run.transactions.stringifyCpuMs, format: ms },
				{
					measure: 'main-thread CPU of execute() / of one JSON.stringify',
					value: (run) => run.transactions.executeMainThreadCpuMs / run.transactions.stringifyCpuMs,
					format: fixed(2),
					goal: '≤ 1.8',
				},
				{ measure: 'CPU of all threads of the process during execute() (GC, I/O)', value: (run) => run.transactions.executeProcessCpuMs, format: ms },
				{ measure: 'wall time of execute() (the double reads the bodies meanwhile)', value: (run) => run.transactions.executeWallMs, format: seconds },
				{ measure: 'RSS when execute() starts (input items held)', value: (run) => run.transactions.rssAtStart, format: megabytes },
				{ measure: 'peak RSS inside execute() (kernel maxRSS when it returns)', value: (run) => run.transactions.peakRssInExecute, format: megabytes },
				{
					measure: 'memory growth during execute(): (peak RSS inside it − RSS when it starts) / serialized size',
					value: (run) => (run.transactions.peakRssInExecute - run.transactions.rssAtStart) / run.transactions.serializedBytes,
					format: fixed(2),
					goal: '≤ 1.5',
				},
				{ measure: 'peak RSS of the process (kernel maxRSS) after the run', value: (run) => run.transactions.peakRss, format: megabytes },
				{ measure: 'peak RSS / serialized size', value: (run) => run.transactions.peakRss / run.transactions.serializedBytes, format: fixed(2), goal: '≤ 4' },
			],
		},
		{
			title: `Transaction › Create: ${count(PER_ITEM_ORDERS)} orders, one request per item (as an HTTP Request node would send them) against the node`,
			rows: [
				{ measure: 'requests, one per item', value: (run) => run.transactionsPerItem.perItemRequests, format: count },
				{ measure: 'requests, the node', value: (run) => run.transactionsPerItem.packageRequests, format: count },
				{ measure: 'wall time, one POST after the other', value: (run) => run.transactionsPerItem.perItemWallMs, format: seconds },
				{ measure: 'wall time of the node’s execute()', value: (run) => run.transactionsPerItem.packageWallMs, format: seconds },
				{ measure: 'one request per item / the node, wall time', value: (run) => run.transactionsPerItem.perItemWallMs / run.transactionsPerItem.packageWallMs, format: fixed(1) },
			],
		},
		{
			title: `Deduplication Key against none, the node's history full at ${count(keyed.history)} keys in n8n's store modelled in-process (its row read as JSON text and parsed, written back serialized; database round trips not included)`,
			rows: [
				...keyRows('one order per execution', `${count(keyed.executions)} executions each`, 'single', tenthsMs),
				...keyRows(`${count(keyed.batchOrders)} orders in one execution`, `${count(keyed.batchRounds)} executions each`, 'batch', ms),
			],
		},
		commonFlowTable(first.commonFlow),
		{
			title: `Report › Get Blocks: Return All over ${count(pages)} pages of ${count(PAGE_SIZE)} blocks (${megabytes(report.xmlBytes)} of XML), ${LATENCY_MS} ms latency per page`,
			rows: [
				{ measure: 'items returned', value: (run) => run.reports.items, format: count, goal: count(report.blocks) },
				{ measure: 'requests', value: (run) => run.reports.requests, format: count, goal: count(pages) },
				{ measure: 'main-thread CPU of execute() per 1,000 records', value: (run) => (run.reports.executeMainThreadCpuMs * 1000) / run.reports.items, format: tenthsMs },
				{
					measure: 'of which parsing and shaping (the same pages parsed again), per 1,000',
					value: (run) => (run.reports.parseAndShapeCpuMs * 1000) / run.reports.items,
					format: tenthsMs,
				},
				{ measure: 'heap held by the output items (freed when they are released)', value: (run) => run.reports.outputHeapBytes, format: megabytes },
				{ measure: 'heap held by the output items / XML received', value: (run) => run.reports.outputHeapBytes / run.reports.xmlBytes, format: fixed(2), goal: '≤ 2' },
				{ measure: 'heap growth over the run, output still held', value: (run) => run.reports.executionHeapBytes, format: megabytes },
				{ measure: `wall time of execute() (at most ${report.mostInFlight} pages in flight at once, seen by the double)`, value: (run) => run.reports.executeWallMs, format: seconds },
				{ measure: 'main thread idle in execute() (wall − CPU − waiting for a CPU)', value: (run) => run.reports.executeIdleMs, format: seconds },
				{ measure: 'CPU of the double (its own process) per page served', value: (run) => run.reports.doubleCpuMs / run.reports.requests, format: tenthsMs },
			],
		},
		{
			title: `Report paging alone (fetchAllPages, parse, shape; outside n8n): the same ${count(pages)} pages, ${concurrency} at a time against one at a time`,
			rows: [
				{ measure: 'records read, both', value: (run) => Math.min(run.pagedReadConcurrent.items, run.pagedReadSequential.items), format: count, goal: count(report.blocks) },
				{ measure: `wall time, ${concurrency} pages at a time`, value: (run) => run.pagedReadConcurrent.wallMs, format: seconds },
				{ measure: 'wall time, one page at a time', value: (run) => run.pagedReadSequential.wallMs, format: seconds },
				{ measure: `wall time, one at a time / ${concurrency} at a time`, value: (run) => run.pagedReadSequential.wallMs / run.pagedReadConcurrent.wallMs, format: fixed(2) },
				{
					measure: `wall less main-thread waiting for a CPU, one at a time / ${concurrency} at a time`,
					value: (run) =>
						(run.pagedReadSequential.wallMs - run.pagedReadSequential.waitingForCpuMs) / (run.pagedReadConcurrent.wallMs - run.pagedReadConcurrent.waitingForCpuMs),
					format: fixed(2),
				},
				{ measure: `main thread idle (waiting for pages), ${concurrency} at a time`, value: (run) => run.pagedReadConcurrent.idleMs, format: seconds },
				{ measure: 'main thread idle (waiting for pages), one at a time', value: (run) => run.pagedReadSequential.idleMs, format: seconds },
			],
		},
	];
}
