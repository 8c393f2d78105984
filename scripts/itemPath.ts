/**
 * The files of nodes/ and credentials/ whose code runs for one item of Transaction › Create, from
 * the node's execute() to the moment the service receives the request: V8's precise coverage is
 * reset just before the workflow runs and read when the double records the request, so nothing
 * before or after that window counts. Files only loaded (imports, constants) do not count.
 *
 * Usage: node .build-test/scripts/itemPath.js
 */
import '../bench/env';

import { Session } from 'node:inspector';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { INodeParameters } from 'n8n-workflow';

import { ServiceDouble } from '../test/double/server';
import type { SourceItem } from '../test/harness/sourceNode';
import { runNode } from '../test/harness/workflow';
import { projectRoot } from './n8n';

interface FunctionCoverage {
	ranges: Array<{ count: number }>;
}

const session = new Session();
session.connect();

function post<T>(method: string, params: object = {}): T {
	let answer: T | undefined;
	session.post(method, params, (error, result) => {
		if (error) throw error;
		answer = result as T;
	});
	if (answer === undefined) throw new Error(`${method} did not answer at once`);
	return answer;
}

/** The project files of nodes/ and credentials/ with a function that ran since the last call. */
function filesRun(): string[] {
	const { result } = post<{ result: Array<{ url: string; functions: FunctionCoverage[] }> }>('Profiler.takePreciseCoverage');
	return result
		.filter((script) => script.url.startsWith('file:') && script.functions.some((fn) => fn.ranges[0].count > 0))
		.map((script) => relative(projectRoot, fileURLToPath(script.url)))
		.filter((file) => /^\.build-test\/(nodes|credentials)\//.test(file))
		.map((file) => file.replace(/^\.build-test\//, '').replace(/\.js$/, '.ts'))
		.sort();
}

async function pathOf(label: string, parameters: INodeParameters, item: SourceItem): Promise<void> {
	const double = await ServiceDouble.start();
	let files: string[] = [];
	const record = double.requests.push.bind(double.requests);
	double.requests.push = (...requests) => {
		if (requests.some((request) => request.rawPath === 'transactions')) files = filesRun();
		return record(...requests);
	};
	try {
		const credentials = { baseUrl: double.baseUrl, apiKey: double.apiKey };
		// Once to load every module and warm n8n, then measured.
		await runNode({ credentials, parameters, items: [item] });
		filesRun();
		const result = await runNode({ credentials, parameters, items: [item], workflowId: `item-path-${label}` });
		if (result.main[0]?.queued !== true) throw new Error(`the item was not queued: ${JSON.stringify(result.main[0] ?? result.error)}`);
		console.log(`${label}: ${files.length} files\n${files.map((file) => `  ${file}`).join('\n')}`);
	} finally {
		await double.close();
	}
}

async function main(): Promise<void> {
	post('Profiler.enable');
	post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
	const order = { 'order.id': 'A-1', 'order.total': 59.9, email: 'anna@example.com' };
	await pathOf('JSON input, no options', { resource: 'transaction', operation: 'create', inputMode: 'json' }, {
		json: { type: 1, contact: { email: 'anna@example.com' }, content: order },
	});
	await pathOf(
		'Fields input, mapped content, an attachment and a Deduplication Key',
		{
			resource: 'transaction',
			operation: 'create',
			inputMode: 'fields',
			typeId: 1,
			contactEmail: '={{ $json.email }}',
			contentMode: 'mapped',
			contentFields: { mappingMode: 'autoMapInputData', value: null, attemptToConvertTypes: true },
			options: { attachmentBinaryProperties: 'invoice', deduplicationKey: '={{ $json["order.id"] }}' },
		},
		{ json: order, binaries: [{ property: 'invoice', fileName: 'invoice.pdf', mimeType: 'application/pdf', data: Buffer.from('%PDF').toString('base64') }] },
	);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
