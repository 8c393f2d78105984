import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { processedData } from '../harness/processedData';
import { registerNodeType, runWorkflow } from '../harness/workflow';

/**
 * The harness store must behave as n8n's database-backed deduplication helper does (n8n
 * 2.8.4, packages/cli/src/deduplication/deduplication-helper.ts); these are the behaviours
 * the node's deduplication relies on, each as n8n shows it.
 */
const context = (workflowId: string, nodeId: string): ICheckProcessedContextData => ({
	workflow: { id: workflowId, active: false },
	node: { id: nodeId } as INode,
});
const sender = context('wf-1', 'send');

async function check(items: DeduplicationItemTypes[], maxEntries?: number, where = sender, scope: DeduplicationScope = 'node') {
	return await processedData.checkProcessedAndRecord(items, scope, where, { mode: 'entries', maxEntries });
}

describe('harness deduplication store, as n8n keeps processed data', () => {
	it('calls a value new the first time and processed in every later call', async () => {
		expect(await check(['A-1', 'A-2'])).toEqual({ new: ['A-1', 'A-2'], processed: [] });
		expect(await check(['A-2', 'A-3', 'A-1'])).toEqual({ new: ['A-3'], processed: ['A-2', 'A-1'] });
		expect(await check(['A-3'])).toEqual({ new: [], processed: ['A-3'] });
	});

	it('treats a number and the string of it as the same value', async () => {
		await check([42]);
		expect(await check(['42'])).toEqual({ new: [], processed: ['42'] });
	});

	it('calls a value repeated within one call new each time, and keeps it twice', async () => {
		expect(await check(['B-1', 'B-1'])).toEqual({ new: ['B-1', 'B-1'], processed: [] });
		expect(processedData.size({ workflowId: 'wf-1', nodeId: 'send' })).toBe(2);
		// Also once a history exists: each value is checked against the history as read.
		expect(await check(['B-2', 'B-2', 'B-1'])).toEqual({ new: ['B-2', 'B-2'], processed: ['B-1'] });
	});

	it('keeps the newest maxEntries values and forgets the oldest', async () => {
		await check(['C-1', 'C-2', 'C-3'], 2);
		expect(processedData.size({ workflowId: 'wf-1', nodeId: 'send' })).toBe(2);
		expect(await check(['C-1'], 2)).toEqual({ new: ['C-1'], processed: [] });
		// C-1 came back as the newest; C-2 was the oldest and went.
		expect(await check(['C-2', 'C-3'], 2)).toEqual({ new: ['C-2'], processed: ['C-3'] });
	});

	it('removes one occurrence of each value given, so the value is new again', async () => {
		await check(['D-1', 'D-2']);
		await processedData.removeProcessed(['D-1'], 'node', sender, { mode: 'entries' });
		expect(await check(['D-1', 'D-2'])).toEqual({ new: ['D-1'], processed: ['D-2'] });

		await check(['D-3', 'D-3'], undefined, context('wf-1', 'other'));
		await processedData.removeProcessed(['D-3'], 'node', context('wf-1', 'other'), { mode: 'entries' });
		expect(processedData.remembers('D-3', { workflowId: 'wf-1', nodeId: 'other' })).toBe(true);
	});

	it("keeps scope 'node' apart per workflow id and node id, and scope 'workflow' per workflow", async () => {
		await check(['E-1']);
		expect(await check(['E-1'], undefined, context('wf-1', 'another node'))).toEqual({ new: ['E-1'], processed: [] });
		expect(await check(['E-1'], undefined, context('wf-2', 'send'))).toEqual({ new: ['E-1'], processed: [] });

		await check(['E-2'], undefined, context('wf-3', 'first'), 'workflow');
		expect(await check(['E-2'], undefined, context('wf-3', 'second'), 'workflow')).toEqual({ new: [], processed: ['E-2'] });
	});

	it('counts and clears one history', async () => {
		await check(['F-1', 'F-2']);
		expect(await processedData.getProcessedDataCount('node', sender, { mode: 'entries' })).toBe(2);
		await processedData.clearAllProcessedItems('node', sender, { mode: 'entries' });
		expect(await check(['F-1'])).toEqual({ new: ['F-1'], processed: [] });
	});

	describe('without a lock', () => {
		it('lets two calls at the same moment both take a value as new, and keeps one writer only', async () => {
			await check(['G-0']);
			const [first, second] = await Promise.all([check(['G-1']), check(['G-1', 'G-2'])]);
			expect(first.new).toEqual(['G-1']);
			expect(second.new).toEqual(['G-1', 'G-2']);
			// The row is written back whole: the later write wins.
			expect(processedData.size({ workflowId: 'wf-1', nodeId: 'send' })).toBe(3);
			const [third] = await Promise.all([check(['G-3']), check(['G-4'])]);
			expect(third.new).toEqual(['G-3']);
			expect(processedData.remembers('G-3', { workflowId: 'wf-1', nodeId: 'send' })).toBe(false);
			expect(processedData.remembers('G-4', { workflowId: 'wf-1', nodeId: 'send' })).toBe(true);
		});

		it('fails the second of two first calls on the primary key', async () => {
			const results = await Promise.allSettled([check(['H-1']), check(['H-1'])]);
			expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected']);
			expect(processedData.size({ workflowId: 'wf-1', nodeId: 'send' })).toBe(1);
		});
	});
});

/** Checks its items' `key` with n8n's helper and says for each whether it was new. */
class ProbeNode implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Probe',
		name: 'harness.dedupProbe',
		group: ['transform'],
		version: 1,
		description: 'Test probe',
		defaults: { name: 'Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const keys = items.map((item) => item.json.key as string);
		const checked = await this.helpers.checkProcessedAndRecord(keys, 'node', { mode: 'entries', maxEntries: 5 });
		return [keys.map((key) => ({ json: { key, new: checked.new.includes(key) } }))];
	}
}

describe('harness workflow runs', () => {
	registerNodeType('harness.dedupProbe', new ProbeNode());
	const nodes: INode[] = [
		{ id: 'source', name: 'Source Items', type: 'harness.items', typeVersion: 1, position: [0, 0], parameters: { items: JSON.stringify([{ json: { key: 'K-1' } }, { json: { key: 'K-2' } }]) } },
		{ id: 'probe', name: 'Probe', type: 'harness.dedupProbe', typeVersion: 1, position: [200, 0], parameters: {} },
	];
	const connections = { 'Source Items': { main: [[{ node: 'Probe', type: 'main' as const, index: 0 }]] } };
	const credentials = { baseUrl: 'http://127.0.0.1:9/1.0', apiKey: 'unused' };
	const probeOutput = async (workflowId?: string) => {
		const run = await runWorkflow(nodes, connections, credentials, undefined, workflowId);
		return run.data.resultData.runData.Probe[0].data?.main[0]?.map((item) => item.json);
	};

	it('share the store between executions of one workflow, as n8n does', async () => {
		expect(await probeOutput()).toEqual([{ key: 'K-1', new: true }, { key: 'K-2', new: true }]);
		expect(await probeOutput()).toEqual([{ key: 'K-1', new: false }, { key: 'K-2', new: false }]);
		expect(await probeOutput('another-workflow')).toEqual([{ key: 'K-1', new: true }, { key: 'K-2', new: true }]);
		expect(processedData.calls.map((call) => [call.workflowId, call.nodeId, call.options.maxEntries])).toEqual([
			['test-workflow', 'probe', 5],
			['test-workflow', 'probe', 5],
			['another-workflow', 'probe', 5],
		]);
	});

	it('start each test with an empty store', async () => {
		expect(processedData.calls).toEqual([]);
		expect(await probeOutput()).toEqual([{ key: 'K-1', new: true }, { key: 'K-2', new: true }]);
	});
});
