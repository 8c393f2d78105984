import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IHttpRequestOptions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	INodeTypes,
	IRun,
	IWorkflowBase,
	IWorkflowExecuteAdditionalData,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { DataDeduplicationService, ExecutionLifecycleHooks, WorkflowExecute } from 'n8n-core';

import { MailingPlatformApi } from '../../credentials/MailingPlatformApi.credentials';
import { MailingPlatform } from '../../nodes/MailingPlatform/MailingPlatform.node';
import { MailingPlatformTrigger } from '../../nodes/MailingPlatformTrigger/MailingPlatformTrigger.node';
import { keyStoreIdle } from '../../nodes/MailingPlatform/helpers/keyStore';
import { HARNESS_NODE, processedData } from './processedData';
import { storeCallsOfProcesses } from './storeCallsOfProcesses';
import type { SourceItem } from './sourceNode';
import { SOURCE_NODE_TYPE, SourceItems } from './sourceNode';

export const NODE_TYPE = 'n8n-nodes-mailing-platform.mailingPlatform';
export const NODE_NAME = 'Mailing Platform';
export const TRIGGER_NODE_TYPE = 'n8n-nodes-mailing-platform.mailingPlatformTrigger';

const nodeTypeInstances: Record<string, INodeType> = {
	[NODE_TYPE]: new MailingPlatform(),
	[TRIGGER_NODE_TYPE]: new MailingPlatformTrigger(),
	[SOURCE_NODE_TYPE]: new SourceItems(),
};

/** A node-types registry holding just this package's nodes and the test source node. */
export const nodeTypes: INodeTypes = {
	getByName: (type) => nodeTypeInstances[type],
	getByNameAndVersion: (type) => nodeTypeInstances[type],
	getKnownTypes: () => ({}),
};

export function registerNodeType(type: string, node: INodeType): void {
	nodeTypeInstances[type] = node;
}

export interface CredentialValues {
	baseUrl: string;
	apiKey: string;
	/** The credential's Platform Time Zone; empty or absent means the workflow's zone. */
	platformTimeZone?: string;
	/** The credential's Max Requests per Second; empty or 0 means not paced. */
	maxRequestsPerSecond?: number;
}

const credentialType = new MailingPlatformApi();

/** How often n8n decrypted a credential for the nodes, as its credentials helper would. */
export const credentialDecryptions = { count: 0 };

/** Resolves the credential and applies its real `authenticate`, as n8n's own helper does. */
export function additionalDataFor(credentials: CredentialValues, workflowData: IWorkflowBase): IWorkflowExecuteAdditionalData {
	const credentialsHelper = {
		getParentTypes: () => [],
		authenticate: async (decrypted: ICredentialDataDecryptedObject, _type: string, options: IHttpRequestOptions) =>
			await credentialType.authenticate(decrypted, options),
		preAuthentication: async () => undefined,
		getDecrypted: async () => {
			credentialDecryptions.count++;
			return { ...credentials } as ICredentialDataDecryptedObject;
		},
		getCredentials: async () => {
			throw new Error('not used by these nodes');
		},
		updateCredentials: async () => undefined,
		updateCredentialsOauthTokenData: async () => undefined,
		getCredentialsProperties: () => credentialType.properties,
		// Newer n8n-core (2.41) asks this before a node gets its credential; answered as n8n does.
		isCredentialUsableByNode: (type: string, nodeType: string) =>
			nodeTypeInstances[nodeType]?.description.credentials?.some((credential) => credential.name === type) ?? false,
	};
	return {
		credentialsHelper,
		hooks: new ExecutionLifecycleHooks('manual', 'test-execution', workflowData),
		currentNodeExecutionIndex: 0,
		executeWorkflow: async () => {
			throw new Error('sub-workflows are not used');
		},
		getRunExecutionData: async () => undefined,
		restApiUrl: 'http://127.0.0.1/rest',
		instanceBaseUrl: 'http://127.0.0.1/',
		formWaitingBaseUrl: 'http://127.0.0.1/form-waiting',
		webhookBaseUrl: 'http://127.0.0.1/webhook',
		webhookWaitingBaseUrl: 'http://127.0.0.1/webhook-waiting',
		webhookTestBaseUrl: 'http://127.0.0.1/webhook-test',
		variables: {},
		logAiEvent: () => undefined,
		startRunnerTask: async () => {
			throw new Error('task runners are not used');
		},
	} as unknown as IWorkflowExecuteAdditionalData;
}

export interface NodeRunOptions {
	credentials: CredentialValues;
	parameters: INodeParameters;
	items?: Array<IDataObject | SourceItem>;
	onError?: INode['onError'];
	/** Settings › Retry On Fail, Max. Tries and Wait Between Tries (ms; n8n takes 0 as 1,000). */
	retry?: Pick<INode, 'retryOnFail' | 'maxTries' | 'waitBetweenTries'>;
	timezone?: string;
	/**
	 * Every run is an execution of the same saved workflow unless told otherwise, so runs share
	 * the node's deduplication history (in `processedData`, the model of n8n's store), as executions in n8n do.
	 */
	workflowId?: string;
	/** Another registered type of the node, e.g. the node as a second n8n process loads it. */
	nodeType?: string;
	/** n8n stops the execution (as its Stop button does) when this settles. */
	stopWhen?: Promise<unknown>;
	/** How n8n started the execution: from the editor unless told otherwise, 'cli' as `n8n execute` does. */
	mode?: WorkflowExecuteMode;
	timeout?: WorkflowTimeout;
}

/**
 * The workflow's Settings › Timeout Workflow, and how much of it is left as this run starts: n8n
 * counts it from the execution's start, and its earlier nodes may have taken the rest.
 */
export interface WorkflowTimeout {
	seconds: number;
	leftMs: number;
}

export interface NodeRunResult {
	/** JSON of the node's main output. */
	main: IDataObject[];
	/** JSON of the node's error output (empty unless onError is continueErrorOutput). */
	errorOutput: IDataObject[];
	/** Full output items, pairedItem and binary included. */
	outputs: INodeExecutionData[][];
	/** The node's error when the run stopped on it. */
	error?: { message: string; description?: string | null; httpCode?: string; context?: IDataObject };
	run: IRun;
}

function toSourceItem(item: IDataObject | SourceItem): SourceItem {
	return 'json' in item && typeof item.json === 'object' ? (item as SourceItem) : { json: item as IDataObject };
}

/** Source Items -> Mailing Platform (with `parameters`): the workflow `runNode` runs. */
function nodeWorkflow(options: NodeRunOptions): { nodes: INode[]; connections: IWorkflowBase['connections'] } {
	const nodes: INode[] = [
		{
			id: 'source',
			name: 'Source Items',
			type: SOURCE_NODE_TYPE,
			typeVersion: 1,
			position: [0, 0],
			parameters: { items: JSON.stringify((options.items ?? [{}]).map(toSourceItem)) },
		},
		{
			id: HARNESS_NODE.nodeId,
			name: NODE_NAME,
			type: options.nodeType ?? NODE_TYPE,
			typeVersion: 1,
			position: [200, 0],
			parameters: options.parameters,
			credentials: { mailingPlatformApi: { id: 'credential', name: 'Mailing Platform account' } },
			...(options.onError ? { onError: options.onError } : {}),
			...options.retry,
		},
	];
	const connections = { 'Source Items': { main: [[{ node: NODE_NAME, type: 'main' as const, index: 0 }]] } };
	return { nodes, connections };
}

/** What the Mailing Platform node's last run gave, or the error the execution stopped on. */
function nodeRunResult(run: IRun): NodeRunResult {
	const taskData = run.data.resultData.runData[NODE_NAME]?.at(-1);
	const outputs = (taskData?.data?.main ?? []).map((output) => output ?? []);
	const error = taskData?.error ?? run.data.resultData.error;
	return {
		main: (outputs[0] ?? []).map((item) => item.json),
		errorOutput: (outputs[1] ?? []).map((item) => item.json),
		outputs,
		error: error
			? {
					message: error.message,
					description: (error as { description?: string | null }).description,
					httpCode: (error as { httpCode?: string }).httpCode,
					context: (error as { context?: IDataObject }).context,
				}
			: undefined,
		run,
	};
}

/** Runs Source Items -> Mailing Platform (with `parameters`) as a real workflow. */
export async function runNode(options: NodeRunOptions): Promise<NodeRunResult> {
	const { nodes, connections } = nodeWorkflow(options);
	return nodeRunResult(await runWorkflow(nodes, connections, options.credentials, options.timezone, options.workflowId, options.stopWhen, options.mode, options.timeout));
}

/**
 * n8n's Retry of a failed execution (the executions list's Retry): a new execution, in mode
 * `retry`, of the data n8n stored for the failed one, read back from its database (so it shares
 * no object with the failed execution), without the execution's error and without the failed
 * node's last run; the failed node is still on the execution stack with its input, and runs
 * again from there. A model of n8n's execution service, which lives in its CLI package.
 */
export async function retryExecution(options: NodeRunOptions, failed: IRun): Promise<NodeRunResult> {
	const { nodes, connections } = nodeWorkflow(options);
	const stored = JSON.parse(JSON.stringify(failed.data)) as IRun['data'];
	const { lastNodeExecuted } = stored.resultData;
	if (lastNodeExecuted !== undefined) {
		delete stored.resultData.error;
		const runs = stored.resultData.runData[lastNodeExecuted] ?? [];
		if (runs.at(-1)?.error !== undefined) runs.pop();
	}
	const { workflow, workflowData } = await workflowOf(nodes, connections, options.timezone, options.workflowId);
	const execute = new WorkflowExecute(additionalDataFor(options.credentials, workflowData), 'retry', stored);
	return nodeRunResult(await execute.processRunExecutionData(workflow));
}

storeCallsOfProcesses.push(keyStoreIdle);

let processedDataInstalled = false;

/** Gives nodes n8n-core's own deduplication helpers, backed by the model of n8n's store, once per process. */
async function installProcessedData(): Promise<void> {
	if (processedDataInstalled) return;
	processedDataInstalled = true;
	await DataDeduplicationService.init(processedData);
}

async function workflowOf(
	nodes: INode[],
	connections: IWorkflowBase['connections'],
	timezone = 'Europe/Berlin',
	workflowId: string = HARNESS_NODE.workflowId,
	executionTimeout?: number,
): Promise<{ workflow: Workflow; workflowData: IWorkflowBase }> {
	await installProcessedData();
	const workflowData: IWorkflowBase = {
		id: workflowId,
		name: 'Test workflow',
		active: false,
		isArchived: false,
		nodes,
		connections,
		settings: { timezone, executionOrder: 'v1', ...(executionTimeout === undefined ? {} : { executionTimeout }) },
		createdAt: new Date(),
		updatedAt: new Date(),
	} as IWorkflowBase;
	const workflow = new Workflow({
		id: workflowData.id,
		name: workflowData.name,
		nodes,
		connections,
		active: false,
		nodeTypes,
		settings: workflowData.settings,
	});
	return { workflow, workflowData };
}

export async function runWorkflow(
	nodes: INode[],
	connections: IWorkflowBase['connections'],
	credentials: CredentialValues,
	timezone = 'Europe/Berlin',
	workflowId: string = HARNESS_NODE.workflowId,
	stopWhen?: Promise<unknown>,
	mode: WorkflowExecuteMode = 'manual',
	timeout?: WorkflowTimeout,
): Promise<IRun> {
	const { workflow, workflowData } = await workflowOf(nodes, connections, timezone, workflowId, timeout?.seconds);
	const additionalData = additionalDataFor(credentials, workflowData);
	// Where n8n keeps its timeout's moment for the execution's nodes (its workflow runner sets it as the execution starts).
	if (timeout !== undefined) additionalData.executionTimeoutTimestamp = Date.now() + timeout.leftMs;
	const execute = new WorkflowExecute(additionalData, mode);
	const running = execute.run({ workflow, startNode: workflow.getNode(nodes[0].name) ?? undefined });
	void stopWhen?.then(() => running.cancel());
	return await running;
}
