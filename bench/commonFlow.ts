// First: this project's code and n8n's nodes must load the same n8n-workflow and n8n-core.
import { n8nModulesInUse, requireFromN8n } from './n8nModules';

import type { INode, INodeParameters, INodeType, VersionedNodeType } from 'n8n-workflow';

import { shopOrders, type ShopOrder } from '../test/peak/delivery';
import { HTTP_REQUEST_NODE, httpRequestParameters } from '../test/peak/httpRequestNode';
import { ORDER_TYPE, orderConfirmationParameters } from '../test/peak/workflows';
import { HARNESS_NODE, processedData } from '../test/harness/processedData';
import { SOURCE_NODE_TYPE } from '../test/harness/sourceNode';
import type { CredentialValues } from '../test/harness/workflow';
import { NODE_TYPE, registerNodeType, runWorkflow } from '../test/harness/workflow';
import { measureAlternating } from './alternatingRounds';
import { DoubleProcess } from './doubleProcess';
import type { Measurements, Settings } from './scenario';

const NO_OP_NODE = { type: 'n8n-nodes-base.noOp', typeVersion: 1 } as const;
const NODE_NAME = 'Node';

/** The flows, each Webhook-like source -> one node, the order in `$json.body` as n8n's Webhook puts it. */
export const COMMON_FLOWS = ['create', 'createKeyed', 'httpRequest', 'noOp'] as const;
export type Flow = (typeof COMMON_FLOWS)[number];

export function loadN8nNode(file: string, exported: string, version: number): { file: string; node: INodeType } {
	const path = requireFromN8n.resolve(`n8n-nodes-base/dist/nodes/${file}`);
	const type = (requireFromN8n(path) as Record<string, new () => INodeType | VersionedNodeType>)[exported];
	const instance = new type();
	return { file: path, node: 'getNodeType' in instance ? instance.getNodeType(version) : instance };
}

function flowNode(flow: Flow, service: CredentialValues, historySize: number): INode {
	const node = { id: HARNESS_NODE.nodeId, name: NODE_NAME, position: [200, 0] as [number, number] };
	const credentials = { mailingPlatformApi: { id: 'credential', name: 'Mailing Platform account' } };
	switch (flow) {
		case 'create':
			return { ...node, type: NODE_TYPE, typeVersion: 1, parameters: orderConfirmationParameters('$json.body') as INodeParameters, credentials };
		case 'createKeyed': {
			const options = { deduplicationKey: '={{ $json.body.id }}', deduplicationHistorySize: historySize };
			return { ...node, type: NODE_TYPE, typeVersion: 1, parameters: orderConfirmationParameters('$json.body', options) as INodeParameters, credentials };
		}
		case 'httpRequest':
			return { ...node, ...HTTP_REQUEST_NODE, parameters: httpRequestParameters('$json.body', service) as INodeParameters };
		case 'noOp':
			return { ...node, ...NO_OP_NODE, parameters: {} };
	}
}

/**
 * Fills the node's key history in n8n's store (the harness's model) as `history` earlier orders
 * left it: the node keeps each key beside a mark of its queued transaction, so 2 × `history` entries.
 */
export function seedFullHistory(history: number): void {
	processedData.seed(Array.from({ length: 2 * history }, (_, index) => `earlier-${index}`));
}

/** Whether the node's output says the order was queued (or, for NoOp, passed it on). */
function queued(flow: Flow, output: Record<string, unknown> | undefined, order: ShopOrder): boolean {
	if (flow === 'noOp') return (output?.body as ShopOrder | undefined)?.id === order.id;
	if (flow === 'httpRequest') return (output?.reports as Array<{ queued?: unknown }> | undefined)?.[0]?.queued === true;
	return output?.queued === true;
}

/** One execution of the flow for one order; throws unless the order was queued. */
export async function executeOne(flow: Flow, order: ShopOrder, service: CredentialValues, historySize: number): Promise<void> {
	const source: INode = {
		id: 'source',
		name: 'Webhook',
		type: SOURCE_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { items: JSON.stringify([{ json: { body: order } }]) },
	};
	const connections = { Webhook: { main: [[{ node: NODE_NAME, type: 'main' as const, index: 0 }]] } };
	const run = await runWorkflow([source, flowNode(flow, service, historySize)], connections, service);
	const task = run.data.resultData.runData[NODE_NAME]?.[0];
	if (task?.error) throw new Error(`${flow}: the node failed: ${task.error.message}`);
	if (!queued(flow, task?.data?.main[0]?.[0]?.json, order)) throw new Error(`${flow}: order ${order.id} was not queued`);
}

/**
 * One order per execution, as one order per webhook call: Transaction › Create without and with
 * a Deduplication Key (its history full), n8n's HTTP Request node sending the same POST, and
 * NoOp (what n8n's execution costs with no work in the node), in alternating rounds.
 */
export async function commonFlow(settings: Settings): Promise<Measurements> {
	const { executions, perRound, warmUp, history } = settings;
	const httpRequest = loadN8nNode('HttpRequest/HttpRequest.node.js', 'HttpRequest', HTTP_REQUEST_NODE.typeVersion);
	registerNodeType(HTTP_REQUEST_NODE.type, httpRequest.node);
	registerNodeType(NO_OP_NODE.type, loadN8nNode('NoOp/NoOp.node.js', 'NoOp', NO_OP_NODE.typeVersion).node);
	const versions = n8nModulesInUse(httpRequest.file);
	console.error(`common flow: n8n ${versions.n8n}'s n8n-core ${versions.n8nCore} and n8n-workflow ${versions.n8nWorkflow} for every node`);
	seedFullHistory(history);

	const double = await DoubleProcess.start('transactionsDouble', [`${ORDER_TYPE.id}=${ORDER_TYPE.name}`, 'digests']);
	// As the sandbox credential that test:peak uses: with the account's Platform Time Zone.
	const service: CredentialValues = { ...double.credentials, platformTimeZone: 'Europe/Berlin' };
	try {
		// The same order through Create and the HTTP Request node must make the same request.
		const [probe] = shopOrders('PROBE', 1);
		for (const flow of ['create', 'httpRequest'] as const) await executeOne(flow, probe, service, history);
		const probeStats = await double.stats();
		const [first, second] = probeStats.requests.map((request, index) => `${request.path} ${probeStats.bodyDigests?.[index]}`);
		if (probeStats.requests.length !== 2 || first !== second) throw new Error(`Create and the HTTP Request node sent different requests: ${first} / ${second}`);
		await double.reset();

		const orders = Object.fromEntries(COMMON_FLOWS.map((flow) => [flow, shopOrders(flow.toUpperCase(), warmUp + executions)])) as Record<Flow, ShopOrder[]>;
		const next = Object.fromEntries(COMMON_FLOWS.map((flow) => [flow, 0])) as Record<Flow, number>;
		const totals = await measureAlternating([...COMMON_FLOWS], { warmUp, executions, perRound }, async (flow) => {
			await executeOne(flow as Flow, orders[flow as Flow][next[flow as Flow]++], service, history);
		});

		const stats = await double.stats();
		const sent = warmUp + executions;
		const failed = stats.requests.filter((request) => request.status !== 200).length;
		if (stats.requests.length !== 3 * sent || failed > 0 || new Set(stats.queuedOrderIds).size !== 3 * sent) {
			throw new Error(`expected ${3 * sent} requests, each queuing its own order; saw ${stats.requests.length}, ${failed} failed`);
		}
		if (processedData.size() !== 2 * history) throw new Error(`the key history holds ${processedData.size()} entries, not ${2 * history}`);

		const measurements: Measurements = { executions, perRound, warmUp, history };
		for (const flow of COMMON_FLOWS) {
			const { cpuMs, wallMs, gcMs, gcCount, majorGcCount } = totals[flow];
			Object.assign(measurements, {
				[`${flow}CpuMs`]: cpuMs / executions,
				[`${flow}WallMs`]: wallMs / executions,
				[`${flow}GcMs`]: gcMs / executions,
				[`${flow}GcsPer1000`]: (gcCount * 1000) / executions,
				[`${flow}MajorGcsPer1000`]: (majorGcCount * 1000) / executions,
			});
		}
		return measurements;
	} finally {
		double.stop();
	}
}
