import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { toRawBlock } from '../nodes/MailingPlatform/helpers/blockRecords';
import { buildUrl, readPaging } from '../nodes/MailingPlatform/transport';
import { DEFAULT_PAGE_CONCURRENCY, fetchAllPages } from '../nodes/MailingPlatform/transport/paging';
import { parseXml } from '../nodes/MailingPlatform/transport/xml';
import { ReportsArea } from '../test/double/routes/reports';
import type { CredentialValues } from '../test/harness/workflow';
import { runNode } from '../test/harness/workflow';
import type { BenchTable } from './run';

const BLOCKS = 100_000;
const PAGE_SIZE = 1000;
const LATENCY_MS = 20;
const TIME_ZONE = 'Europe/Berlin';

/** Asks the double's process something and waits for its answer. */
async function ask(child: ChildProcess, command: object): Promise<Record<string, unknown>> {
	return await new Promise((resolve) => {
		child.once('message', (answer) => resolve(answer as Record<string, unknown>));
		child.send(command);
	});
}

async function returnAll(
	child: ChildProcess,
	credentials: CredentialValues,
	limit?: number,
): Promise<{ wallMs: number; items: number; requests: number; retainedBytes: number }> {
	const gc = (globalThis as { gc?: () => void }).gc;
	gc?.();
	const heapBefore = process.memoryUsage().heapUsed;
	await ask(child, { kind: 'reset' });
	const started = performance.now();
	const result = await runNode({
		credentials,
		parameters: { resource: 'report', operation: 'getBlocks', ...(limit === undefined ? { returnAll: true } : { limit }) },
	});
	const wallMs = performance.now() - started;
	if (result.error !== undefined) throw new Error(result.error.message);
	const { requests } = await ask(child, { kind: 'requests', prefix: 'reports/blocks' });
	gc?.();
	// Measured while the run's output is still referenced: what one execution holds.
	const retainedBytes = process.memoryUsage().heapUsed - heapBefore;
	return { wallMs, items: result.run.data.resultData.runData['Mailing Platform'][0].data?.main[0]?.length ?? 0, requests: requests as number, retainedBytes };
}

/**
 * Return All's paging alone (fetch, parse, shape every page), `concurrency` pages at a time:
 * paging concurrency is an argument of `fetchAllPages`, not a setting of the node.
 */
async function pagedRead(
	child: ChildProcess,
	credentials: CredentialValues,
	concurrency: number,
): Promise<{ wallMs: number; items: number; requests: number }> {
	await ask(child, { kind: 'reset' });
	const authorization = `Basic ${Buffer.from(credentials.apiKey, 'utf8').toString('base64')}`;
	const started = performance.now();
	const blocks = await fetchAllPages(
		async (pageIndex, pageSize) => {
			const response = await fetch(buildUrl(credentials.baseUrl, ['reports', 'blocks'], { page_index: pageIndex, page_size: pageSize }), {
				headers: { authorization },
			});
			const body = await response.text();
			const parsed = parseXml(body);
			if (!parsed.ok) throw new Error(parsed.problem);
			const records = (parsed.data.blocks as Array<Record<string, never>>).map((block) => toRawBlock(block, TIME_ZONE));
			return { records, paging: readPaging({ 'x-pages': response.headers.get('x-pages') ?? undefined }), body };
		},
		{ concurrency },
	);
	const wallMs = performance.now() - started;
	const { requests } = await ask(child, { kind: 'requests', prefix: 'reports/blocks' });
	return { wallMs, items: blocks.length, requests: requests as number };
}

/** CPU of parsing one page of 1,000 blocks and shaping them into items, averaged. */
async function cpuPerThousand(): Promise<number> {
	const reports = new ReportsArea();
	reports.generateBlocks(PAGE_SIZE);
	const page = reports.handle({
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
	const child = fork(join(__dirname, 'reportsDouble.js'), [String(BLOCKS), String(LATENCY_MS)]);
	try {
		const credentials = (await new Promise((resolve) => child.once('message', resolve))) as CredentialValues;
		const concurrency = DEFAULT_PAGE_CONCURRENCY;
		// Warm-up, so neither measured run pays for loading and compiling the code.
		await returnAll(child, credentials, 5000);
		// n8n-core keeps the last execution's data reachable, so memory is read on the first full run.
		const { retainedBytes, ...node } = await returnAll(child, credentials);
		const sequential = await pagedRead(child, credentials, 1);
		const bounded = await pagedRead(child, credentials, concurrency);
		const cpuMs = await cpuPerThousand();
		const pages = BLOCKS / PAGE_SIZE;
		return {
			title: `Reports: Return All over ${pages} pages of ${PAGE_SIZE} blocks, ${LATENCY_MS} ms latency per page (double in its own process)`,
			rows: [
				{ measure: 'items returned by the node (Return All)', value: String(node.items), goal: String(BLOCKS) },
				{ measure: 'node Return All wall time', value: `${node.wallMs.toFixed(0)} ms` },
				{ measure: 'requests of the node', value: String(node.requests), goal: `${pages} (the page count)` },
				{ measure: `paged read wall time, ${concurrency} pages at a time`, value: `${bounded.wallMs.toFixed(0)} ms` },
				{ measure: 'paged read wall time, sequential', value: `${sequential.wallMs.toFixed(0)} ms` },
				{ measure: 'sequential / bounded-concurrent', value: `${(sequential.wallMs / bounded.wallMs).toFixed(2)}x`, goal: '> 1' },
				{ measure: 'requests (paged read, bounded / sequential)', value: `${bounded.requests} / ${sequential.requests}`, goal: `${pages} / ${pages}` },
				{ measure: 'node CPU per 1,000 records parsed and shaped', value: `${cpuMs.toFixed(1)} ms` },
				{ measure: 'heap held by one execution of 100,000 blocks', value: `${(retainedBytes / 1048576).toFixed(0)} MiB` },
			],
		};
	} finally {
		child.disconnect();
	}
};
