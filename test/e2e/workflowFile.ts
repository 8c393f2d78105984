import { randomUUID } from 'node:crypto';

/** The parts of an n8n workflow export this runner reads or rewrites. */
export interface WorkflowNode {
	id: string;
	name: string;
	type: string;
	typeVersion: number;
	position: [number, number];
	parameters: Record<string, unknown>;
	credentials?: Record<string, { id: string; name: string }>;
	webhookId?: string;
	/** 'continueErrorOutput' when the node sends what failed to its error output. */
	onError?: string;
}

export interface WorkflowFile {
	id: string;
	name: string;
	nodes: WorkflowNode[];
	connections: Record<string, { main: Array<Array<{ node: string; type: string; index: number }>> }>;
	pinData?: Record<string, Array<{ json: unknown }>>;
	[key: string]: unknown;
}

/**
 * What stands in for a trigger that `n8n execute` cannot start from (webhook, schedule,
 * polling trigger): `n8n execute` only starts at a Manual Trigger.
 * - `manualTrigger`: a Manual Trigger under the same name (the trigger's output is not used).
 * - `pinnedData`: the workflow's pinned sample items for that trigger, emitted under its name.
 * - a node: that node (e.g. a report call) under the trigger's name, started by a Manual Trigger.
 */
export type StandIn =
	| 'manualTrigger'
	| 'pinnedData'
	| { type: string; typeVersion: number; parameters: Record<string, unknown>; credentials?: WorkflowNode['credentials'] };

const MANUAL_TRIGGER = 'n8n-nodes-base.manualTrigger';
const CLI_START = 'Start (E2E)';

function isTrigger(node: WorkflowNode): boolean {
	return node.type !== MANUAL_TRIGGER && (/Trigger$/.test(node.type) || node.type === 'n8n-nodes-base.webhook');
}

function newNode(name: string, type: string, typeVersion: number, position: [number, number], parameters: Record<string, unknown>) {
	return { id: randomUUID(), name, type, typeVersion, position, parameters } satisfies WorkflowNode;
}

/** Rewrites a workflow so that `n8n execute` can run it: triggers replaced, pinned data dropped. */
export function prepareForCli(workflow: WorkflowFile, standIns: Record<string, StandIn> = {}): WorkflowFile {
	const result: WorkflowFile = structuredClone(workflow);
	const pinData = result.pinData ?? {};
	const added: WorkflowNode[] = [];
	const connect = (from: string, to: string) => {
		result.connections[from] = { main: [[{ node: to, type: 'main', index: 0 }]] };
	};
	result.nodes = result.nodes.map((node) => {
		if (!isTrigger(node)) return node;
		const standIn = standIns[node.name] ?? (pinData[node.name] !== undefined ? 'pinnedData' : 'manualTrigger');
		const [x, y] = node.position;
		if (standIn === 'manualTrigger') return newNode(node.name, MANUAL_TRIGGER, 1, node.position, {});
		added.push(newNode(CLI_START, MANUAL_TRIGGER, 1, [x - 440, y], {}));
		if (standIn === 'pinnedData') {
			const samples = pinData[node.name];
			if (samples === undefined) throw new Error(`${workflow.name}: no pinned data for "${node.name}"`);
			const holder = `${node.name} (pinned data)`;
			added.push(
				newNode(holder, 'n8n-nodes-base.set', 3.4, [x - 220, y], {
					mode: 'raw',
					jsonOutput: JSON.stringify({ samples: samples.map((sample) => sample.json) }),
					options: {},
				}),
			);
			connect(CLI_START, holder);
			connect(holder, node.name);
			return newNode(node.name, 'n8n-nodes-base.splitOut', 1, node.position, { fieldToSplitOut: 'samples', options: {} });
		}
		connect(CLI_START, node.name);
		return { ...newNode(node.name, standIn.type, standIn.typeVersion, node.position, standIn.parameters), credentials: standIn.credentials };
	});
	result.nodes.push(...added);
	delete result.pinData;
	result.active = false;
	return result;
}

/** One node's output items (first run, first output), as `n8n execute --rawOutput` reports them. */
export type RunData = Record<string, Array<{ data?: { main?: Array<Array<{ json: Record<string, unknown> }> | null> }; error?: unknown }>>;

export function outputOf(runData: RunData, nodeName: string, outputIndex = 0): Array<Record<string, unknown>> {
	const runs = runData[nodeName];
	if (runs === undefined) throw new Error(`node "${nodeName}" did not run (ran: ${Object.keys(runData).join(', ')})`);
	return (runs[0].data?.main?.[outputIndex] ?? []).map((item) => item.json);
}
