import { Agent, get } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { MailingPlatform } from '../nodes/MailingPlatform/MailingPlatform.node';
import { toRawBlock } from '../nodes/MailingPlatform/actions/report/blockRecords';
import { buildQueryString, readPageCount } from '../nodes/MailingPlatform/transport';
import type { PageFetcher } from '../nodes/MailingPlatform/actions/report/paging';
import { fetchAllPages } from '../nodes/MailingPlatform/actions/report/paging';
import { readXml } from '../nodes/MailingPlatform/transport/xml';
import type { CredentialValues, NodeRunResult } from '../test/harness/workflow';
import { NODE_TYPE, registerNodeType, runNode } from '../test/harness/workflow';
import { DoubleProcess } from './doubleProcess';
import { collectGarbage, idleMs, mainThreadCpuMs, measureCall, measuredNode } from './measure';
import type { Measurements, Settings } from './scenario';

export const PAGE_SIZE = 1000;
export const LATENCY_MS = 20;
const TIME_ZONE = 'Europe/Berlin';

async function startDouble(blocks: number): Promise<DoubleProcess> {
	return await DoubleProcess.start('reportsDouble', [String(blocks), String(LATENCY_MS)]);
}

async function getBlocks(credentials: CredentialValues, paging: { returnAll: true } | { limit: number }): Promise<NodeRunResult> {
	const result = await runNode({
		credentials: { ...credentials, platformTimeZone: TIME_ZONE },
		parameters: { resource: 'report', operation: 'getBlocks', simplify: false, ...paging },
	});
	if (result.error !== undefined) throw new Error(result.error.message);
	return result;
}

/** A page as the double sends it, read outside n8n. */
async function fetchPage(credentials: CredentialValues, path: string, agent?: Agent): Promise<{ body: string; headers: Record<string, string | undefined> }> {
	const authorization = `Basic ${Buffer.from(credentials.apiKey).toString('base64')}`;
	return await new Promise((resolve, reject) => {
		get(`${credentials.baseUrl}/${path}`, { agent, headers: { Authorization: authorization } }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => resolve({ body: Buffer.concat(chunks).toString('utf8'), headers: response.headers as Record<string, string | undefined> }));
		}).on('error', reject);
	});
}

/** Main-thread CPU of parsing these bodies and shaping their blocks into items, as the node does. */
function parseAndShapeCpuMs(bodies: string[]): number {
	const before = mainThreadCpuMs();
	for (const body of bodies) {
		for (const block of readXml(body)?.blocks as IDataObject[]) toRawBlock(block, TIME_ZONE);
	}
	return mainThreadCpuMs() - before;
}

/** Return All over `blocks` blocks through the node in n8n: CPU, wall time and the heap its output items hold. */
export async function reports({ blocks }: Settings): Promise<Measurements> {
	const measured = measuredNode(new MailingPlatform());
	registerNodeType(NODE_TYPE, measured.node);
	const double = await startDouble(blocks);
	try {
		// Warm-up: compiles the node's code and has the double render its pages before the measured run.
		await getBlocks(double.credentials, { limit: PAGE_SIZE });
		await double.reset();
		collectGarbage();
		const heapBefore = process.memoryUsage().heapUsed;
		const result = await getBlocks(double.credentials, { returnAll: true });
		const run = measured.last();
		const stats = await double.stats();
		const items = result.main.length;

		collectGarbage();
		const heapWithOutput = process.memoryUsage().heapUsed;
		// Emptied in place: the run data and the harness share these arrays, so the items go.
		for (const output of result.outputs) output.length = 0;
		result.main.length = 0;
		collectGarbage();
		const outputHeapBytes = heapWithOutput - process.memoryUsage().heapUsed;

		const bodies: string[] = [];
		for (const request of stats.requests) bodies.push((await fetchPage(double.credentials, request.path)).body);
		const xmlBytes = stats.answerBytes ?? 0;
		if (bodies.reduce((sum, body) => sum + Buffer.byteLength(body, 'utf8'), 0) !== xmlBytes) {
			throw new Error('the pages fetched again differ from those the node received');
		}
		parseAndShapeCpuMs(bodies.slice(0, 5)); // the same code, warm
		return {
			blocks,
			mostInFlight: stats.mostInFlight ?? 0,
			items,
			requests: stats.requests.length,
			xmlBytes,
			executeWallMs: run.wallMs,
			executeMainThreadCpuMs: run.mainThreadCpuMs,
			executeIdleMs: idleMs(run),
			doubleCpuMs: stats.cpuMs,
			outputHeapBytes,
			executionHeapBytes: heapWithOutput - heapBefore,
			parseAndShapeCpuMs: parseAndShapeCpuMs(bodies),
		};
	} finally {
		double.stop();
	}
}

/**
 * `fetchPage` with at most `most` calls under way at once: the node's paging starts as many as it
 * fetches at a time, and the rest wait here for a call to end.
 */
function atMost<T>(most: number, fetchPage: PageFetcher<T>): PageFetcher<T> {
	let running = 0;
	const waiting: Array<() => void> = [];
	return async (...page) => {
		if (running < most) running++;
		else await new Promise<void>((resolve) => waiting.push(resolve));
		try {
			return await fetchPage(...page);
		} finally {
			// The ending call's turn goes to the next waiting one, if any.
			const next = waiting.shift();
			if (next === undefined) running--;
			else next();
		}
	};
}

/**
 * Return All's paging alone, `concurrency` pages at a time: `fetchAllPages` with the node's
 * parsing and shaping of each page, pages read over HTTP outside n8n. The node has no setting for
 * how many pages it fetches at a time; this benchmark holds its page calls back to `concurrency`,
 * so it can ask for fewer than the node fetches, never more (the double's count of pages in flight
 * says which it got).
 */
export async function pagedRead({ blocks, concurrency }: Settings): Promise<Measurements> {
	const double = await startDouble(blocks);
	const agent = new Agent({ keepAlive: true });
	const pages: PageFetcher<IDataObject> = atMost(concurrency, async (pageIndex, pageSize) => {
		const query = buildQueryString({ exclude_anonymous_blocks: true, page_index: pageIndex, page_size: pageSize });
		const { body, headers } = await fetchPage(double.credentials, `reports/blocks?${query}`, agent);
		const blocks = readXml(body)?.blocks as IDataObject[];
		return { records: blocks.map((block) => toRawBlock(block, TIME_ZONE)), pageCount: readPageCount(headers), body };
	});
	try {
		await fetchAllPages(pages, { limit: PAGE_SIZE });
		await double.reset();
		collectGarbage();
		const { result, measurement } = await measureCall(async () => await fetchAllPages(pages));
		const stats = await double.stats();
		if (stats.mostInFlight !== concurrency) {
			throw new Error(`asked for ${concurrency} pages at a time, but the double saw at most ${stats.mostInFlight}: the node fetches fewer at a time`);
		}
		return {
			concurrency,
			items: result.length,
			requests: stats.requests.length,
			wallMs: measurement.wallMs,
			mainThreadCpuMs: measurement.mainThreadCpuMs,
			waitingForCpuMs: measurement.mainThreadWaitingForCpuMs,
			idleMs: idleMs(measurement),
		};
	} finally {
		agent.destroy();
		double.stop();
	}
}
