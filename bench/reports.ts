import { get } from 'node:http';

import type { IDataObject } from 'n8n-workflow';

import { MailingPlatform } from '../nodes/MailingPlatform/MailingPlatform.node';
import { toRawBlock } from '../nodes/MailingPlatform/helpers/blockRecords';
import { pagingSettings } from '../nodes/MailingPlatform/transport/paging';
import { parseXml } from '../nodes/MailingPlatform/transport/xml';
import type { CredentialValues, NodeRunResult } from '../test/harness/workflow';
import { NODE_TYPE, registerNodeType, runNode } from '../test/harness/workflow';
import { DoubleProcess } from './doubleProcess';
import { collectGarbage, mainThreadCpuMs, measuredNode } from './measure';
import type { Measurements } from './scenario';

export const BLOCKS = 100_000;
export const PAGE_SIZE = 1000;
export const LATENCY_MS = 20;
const TIME_ZONE = 'Europe/Berlin';

async function getBlocks(credentials: CredentialValues, paging: { returnAll: true } | { limit: number }): Promise<NodeRunResult> {
	const result = await runNode({ credentials, parameters: { resource: 'report', operation: 'getBlocks', ...paging }, timezone: TIME_ZONE });
	if (result.error !== undefined) throw new Error(result.error.message);
	return result;
}

/** A page's body as the double sends it, fetched again outside n8n. */
async function fetchBody(credentials: CredentialValues, path: string): Promise<string> {
	const authorization = `Basic ${Buffer.from(credentials.apiKey).toString('base64')}`;
	return await new Promise((resolve, reject) => {
		get(`${credentials.baseUrl}/${path}`, { headers: { Authorization: authorization } }, (response) => {
			const chunks: Buffer[] = [];
			response.on('data', (chunk: Buffer) => chunks.push(chunk));
			response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
		}).on('error', reject);
	});
}

/** Main-thread CPU of parsing these bodies and shaping their blocks into items, as the node does. */
function parseAndShapeCpuMs(bodies: string[]): number {
	const before = mainThreadCpuMs();
	for (const body of bodies) {
		const parsed = parseXml(body);
		if (!parsed.ok) throw new Error(parsed.problem);
		for (const block of parsed.data.blocks as IDataObject[]) toRawBlock(block, TIME_ZONE);
	}
	return mainThreadCpuMs() - before;
}

async function returnAll(concurrency: number, measureMemory: boolean): Promise<Measurements> {
	const measured = measuredNode(new MailingPlatform());
	registerNodeType(NODE_TYPE, measured.node);
	pagingSettings.concurrency = concurrency;
	const double = await DoubleProcess.start('reportsDouble', [String(BLOCKS), String(LATENCY_MS)]);
	try {
		// Warm-up: compiles the node's code and has the double render its pages before the measured run.
		await getBlocks(double.credentials, { limit: PAGE_SIZE });
		await double.reset();
		collectGarbage();
		const heapBefore = process.memoryUsage().heapUsed;
		const result = await getBlocks(double.credentials, { returnAll: true });
		const run = measured.last();
		const stats = await double.stats();
		const measurements: Measurements = {
			concurrency,
			items: result.main.length,
			requests: stats.requests.length,
			xmlBytes: stats.answerBytes ?? 0,
			executeWallMs: run.wallMs,
			executeMainThreadCpuMs: run.mainThreadCpuMs,
			executeIdleMs: run.wallMs - run.mainThreadCpuMs - run.mainThreadWaitingForCpuMs,
			doubleCpuMs: stats.cpuMs,
		};
		if (!measureMemory) return measurements;

		collectGarbage();
		const heapWithOutput = process.memoryUsage().heapUsed;
		// Emptied in place: the run data and the harness share these arrays, so the items go.
		for (const output of result.outputs) output.length = 0;
		result.main.length = 0;
		collectGarbage();
		measurements.outputHeapBytes = heapWithOutput - process.memoryUsage().heapUsed;
		measurements.executionHeapBytes = heapWithOutput - heapBefore;

		const bodies: string[] = [];
		for (const request of stats.requests) bodies.push(await fetchBody(double.credentials, request.path));
		if (bodies.reduce((sum, body) => sum + Buffer.byteLength(body, 'utf8'), 0) !== measurements.xmlBytes) {
			throw new Error('the pages fetched again differ from those the node received');
		}
		parseAndShapeCpuMs(bodies.slice(0, 5)); // the same code, warm
		measurements.parseAndShapeCpuMs = parseAndShapeCpuMs(bodies);
		return measurements;
	} finally {
		double.stop();
	}
}

/** Return All over 100 pages, 4 pages at a time (the node's default), with memory and CPU. */
export async function reports(): Promise<Measurements> {
	return await returnAll(pagingSettings.concurrency, true);
}

/** The same run, one page at a time, for the wall-time comparison. */
export async function reportsSequential(): Promise<Measurements> {
	return await returnAll(1, false);
}
