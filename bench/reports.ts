import { performance } from 'node:perf_hooks';

import { toRawBlock } from '../nodes/MailingPlatform/helpers/blockRecords';
import { pagingSettings } from '../nodes/MailingPlatform/transport/paging';
import { parseXml } from '../nodes/MailingPlatform/transport/xml';
import { ServiceDouble } from '../test/double/server';
import { runNode } from '../test/harness/workflow';
import type { BenchTable } from './run';

const BLOCKS = 100_000;
const PAGE_SIZE = 1000;
const LATENCY_MS = 20;
const TIME_ZONE = 'Europe/Berlin';

async function returnAll(double: ServiceDouble): Promise<{ wallMs: number; items: number; requests: number }> {
	double.requests.length = 0;
	const started = performance.now();
	const result = await runNode({
		credentials: { baseUrl: double.baseUrl, apiKey: double.apiKey },
		parameters: { resource: 'report', operation: 'getBlocks', returnAll: true },
	});
	const wallMs = performance.now() - started;
	if (result.error !== undefined) throw new Error(result.error.message);
	return { wallMs, items: result.main.length, requests: double.requestsTo('reports/blocks').length };
}

/** CPU of parsing one page of 1,000 blocks and shaping them into items, averaged. */
async function cpuPerThousand(double: ServiceDouble): Promise<number> {
	const page = await double.reports.handle({
		method: 'GET',
		segments: ['reports', 'blocks'],
		query: new URLSearchParams({ page_size: String(PAGE_SIZE), standard_field: 'FIRSTNAME' }),
		headers: {},
		body: Buffer.alloc(0),
	});
	const body = page?.body ?? '';
	const rounds = 20;
	const before = process.cpuUsage();
	for (let round = 0; round < rounds; round++) {
		const parsed = parseXml(body);
		if (!parsed.ok) throw new Error(parsed.problem);
		for (const block of parsed.data.blocks as Array<Record<string, never>>) toRawBlock(block, TIME_ZONE);
	}
	const used = process.cpuUsage(before);
	return (used.user + used.system) / 1000 / rounds;
}

export default async (): Promise<BenchTable> => {
	const double = await ServiceDouble.start();
	try {
		double.reports.generateBlocks(BLOCKS, { start: '2024-05-01T00:00:00Z', stepMs: 1000 });
		double.faults.delayMs = LATENCY_MS;
		const concurrency = pagingSettings.concurrency;
		const heapBefore = process.memoryUsage().heapUsed;
		const bounded = await returnAll(double);
		const heapAfter = process.memoryUsage().heapUsed;
		pagingSettings.concurrency = 1;
		const sequential = await returnAll(double);
		pagingSettings.concurrency = concurrency;
		double.faults.delayMs = 0;
		const cpuMs = await cpuPerThousand(double);
		const pages = BLOCKS / PAGE_SIZE;
		return {
			title: `Reports: Return All over ${pages} pages of ${PAGE_SIZE} blocks, ${LATENCY_MS} ms latency per page`,
			rows: [
				{ measure: 'items returned', value: String(bounded.items), goal: String(BLOCKS) },
				{ measure: `wall time, ${concurrency} pages at a time`, value: `${bounded.wallMs.toFixed(0)} ms` },
				{ measure: 'wall time, sequential', value: `${sequential.wallMs.toFixed(0)} ms` },
				{ measure: 'sequential / bounded-concurrent', value: `${(sequential.wallMs / bounded.wallMs).toFixed(2)}x`, goal: '> 1' },
				{ measure: 'requests (bounded-concurrent)', value: String(bounded.requests), goal: `${pages} (the page count)` },
				{ measure: 'requests (sequential)', value: String(sequential.requests), goal: String(pages) },
				{ measure: 'node CPU per 1,000 records parsed and shaped', value: `${cpuMs.toFixed(1)} ms` },
				{ measure: 'heap growth over one Return All (incl. double)', value: `${((heapAfter - heapBefore) / 1048576).toFixed(0)} MiB` },
			],
		};
	} finally {
		await double.close();
	}
};
