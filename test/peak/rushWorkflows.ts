/**
 * The workflows of test:peak's rush, each Webhook (POST, Respond: Immediately) -> one node, one
 * order per webhook call, as a shop sends them: Create; Create with the order id as
 * Deduplication Key; n8n's HTTP Request node with Retry On Fail (5 tries, 1 s apart: n8n's advice
 * for rate limits); Create with the budget in its credential (maxRequestsPerSecond); Create in
 * two workflows on one credential, the account refusing with 503 and a Retry-After date; Create
 * again once the account's budget doubled, to find it with the pace (e) taught. And a shop's
 * steady state: keyed Create beside what a user builds from n8n's own nodes for the same promise
 * (Remove Duplicates before the HTTP Request node, its header in a Header Auth credential), and
 * Create without the key beside that HTTP Request node alone (and, with `--compare`, the HTTP
 * Request node with the header written in it); both keyed flows' histories are filled first
 * through a second webhook that hands the same nodes a batch of orders.
 */
import { randomUUID } from 'node:crypto';

import type { CredentialToImport } from '../../scripts/n8n';
import { type BudgetSettings, RETRY_AFTER_HTTP_DATE } from '../double/budget';
import type { WorkflowFile, WorkflowNode } from '../e2e/workflowFile';
import { authorizationHeader, HTTP_REQUEST_NODE, httpRequestParameters } from './httpRequestNode';
import { orderConfirmationParameters } from './workflows';

export const RUSH_FLOWS = ['create', 'createKeyed', 'httpRequestRetry', 'createPaced', 'createTwoWorkflows', 'createGrownBudget'] as const;
export const STEADY_FLOWS = ['steadyKeyed', 'steadyRemoveDuplicates', 'steadyUnkeyed', 'steadyCredentialHttpRequest', 'steadyHttpRequest'] as const;
export type RushFlow = (typeof RUSH_FLOWS)[number];
export type SteadyFlow = (typeof STEADY_FLOWS)[number];

export const RUSH_FLOW_LABELS: Record<RushFlow | SteadyFlow, string> = {
	create: '(a) Create',
	createKeyed: '(b) Create with the order id as Deduplication Key',
	httpRequestRetry: '(c) HTTP Request node, Retry On Fail 5 tries 1 s apart (not judged)',
	createPaced: '(d) Create, budget in the credential (maxRequestsPerSecond)',
	createTwoWorkflows: '(e) Create in two workflows on one credential, orders alternating, the account answering 503 with a Retry-After date',
	createGrownBudget: "(f) Create right after (e), the account's budget doubled",
	steadyKeyed: 'Create with the key',
	steadyRemoveDuplicates: "Remove Duplicates (the order id, this node's history) before the HTTP Request node with a Header Auth credential",
	steadyUnkeyed: 'Create without the key',
	steadyCredentialHttpRequest: 'HTTP Request node, the same POST, its header in a Header Auth credential',
	steadyHttpRequest: 'HTTP Request node, the same POST, its header written in the node (not judged)',
};

/** The batch webhook's body: `{ orders: [{ body: order }, ...] }`, so that Create reads each order at `$json.body` as after a webhook of its own. */
export const batchBody = (orders: readonly unknown[]) => JSON.stringify({ orders: orders.map((order) => ({ body: order })) });

export interface RushWorkflow<Flow extends string> {
	flow: Flow;
	file: WorkflowFile;
	webhookPath: string;
	/** A second webhook into the same Create node, taking a batch of orders (`batchBody`). */
	fillPath?: string;
	/** A second workflow with a node of its own on the same credential: the flow's orders alternate between the two. */
	companion?: RushWorkflow<string>;
	/** How the account refuses in this flow, where not as the settings' budget does. */
	refusal?: Pick<BudgetSettings, 'status' | 'retryAfter'>;
	/** The account's budget (rate and burst) in this flow, as a multiple of the settings'. */
	budgetTimes?: number;
}

type Credential = { id: string; name: string };
type Service = { baseUrl: string; apiKey: string };

/** The sandbox credential again, with the account's budget in it: a field the node reads from the sender's rewrite on. */
export function pacedCredential(sandbox: CredentialToImport, maxRequestsPerSecond: number): CredentialToImport {
	return { ...sandbox, id: 'mpRushPacedCred1', name: `${sandbox.name} (${maxRequestsPerSecond} requests per second)`, data: { ...sandbox.data, maxRequestsPerSecond } };
}

/**
 * The steady state's own account: the rush before it taught the sandbox account's sender a pace
 * (the rush's budget), which the steady state, with no budget, is not about.
 */
export function steadyCredential(sandbox: CredentialToImport, service: { otherApiKeys: Set<string> }): CredentialToImport {
	const apiKey = `${String(sandbox.data.apiKey)}-steady`;
	service.otherApiKeys.add(apiKey);
	return { ...sandbox, id: 'mpSteadyCred1', name: `${sandbox.name} (the steady state's account)`, data: { ...sandbox.data, apiKey } };
}

/** n8n's Header Auth credential holding the HTTP Request node's Authorization header, read and decrypted per execution as Create's credential is. */
export function headerCredential(service: Service): CredentialToImport {
	return { id: 'mpSteadyHdrCred1', name: 'Mailing Platform Authorization header', type: 'httpHeaderAuth', data: { name: 'Authorization', value: authorizationHeader(service) } };
}

const KEY = { deduplicationKey: '={{ $json.body.id }}' };

function node(name: string, x: number, y: number, fields: Omit<WorkflowNode, 'id' | 'name' | 'position'>): WorkflowNode {
	return { id: randomUUID(), name, position: [x, y], ...fields };
}

/** The node that sends the order, Create or the HTTP Request node. */
export const SEND_NODE = 'Send Order Confirmation';

function createNode(credential: Credential, options: Record<string, unknown>): WorkflowNode {
	return node(SEND_NODE, 260, 0, {
		type: 'n8n-nodes-mailing-platform.mailingPlatform',
		typeVersion: 1,
		parameters: orderConfirmationParameters('$json.body', options),
		credentials: { mailingPlatformApi: { id: credential.id, name: credential.name } },
	});
}

/**
 * The HTTP Request node sending the order: with `retry`, the node settings n8n's editor writes for
 * Retry On Fail; with `header`, its Authorization header taken from that Header Auth credential.
 */
function httpRequestNode(service: Service, { retry = false, header }: { retry?: boolean; header?: Credential } = {}): WorkflowNode {
	const http = node(SEND_NODE, 260, 0, {
		...HTTP_REQUEST_NODE,
		parameters: httpRequestParameters('$json.body', service, header === undefined ? undefined : 'httpHeaderAuth'),
		...(header === undefined ? {} : { credentials: { httpHeaderAuth: { id: header.id, name: header.name } } }),
	});
	return retry ? Object.assign(http, { retryOnFail: true, maxTries: 5, waitBetweenTries: 1000 }) : http;
}

function webhookNode(name: string, path: string, y: number): WorkflowNode {
	const webhook = node(name, 0, y, { type: 'n8n-nodes-base.webhook', typeVersion: 2, parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} } });
	webhook.webhookId = randomUUID();
	return webhook;
}

const link = (to: string) => ({ main: [[{ node: to, type: 'main', index: 0 }]] });

/** The workflow Webhook -> `chain`, the chain's nodes linked in order. */
function webhookTo<Flow extends string>(flow: Flow, idStem: string, label: string, ...chain: WorkflowNode[]): RushWorkflow<Flow> {
	const webhookPath = `rush-${flow}`;
	const webhook = webhookNode('Shop Order Webhook', webhookPath, 0);
	const nodes = [webhook, ...chain];
	const file: WorkflowFile = {
		id: `${idStem}${flow}`.padEnd(16, '0').slice(0, 16),
		name: `Rush: ${label}`,
		nodes,
		connections: Object.fromEntries(nodes.slice(0, -1).map((from, index) => [from.name, link(nodes[index + 1].name)])),
		active: false,
		settings: { executionOrder: 'v1' },
	};
	return { flow, file, webhookPath };
}

/** The rush workflows; ids are 16 characters like n8n's own, so a flow's name must differ from the others' in its first 10. */
export function rushWorkflows(sandbox: Credential, paced: Credential, service: Service): Array<RushWorkflow<RushFlow>> {
	const sending: Record<RushFlow, WorkflowNode> = {
		create: createNode(sandbox, {}),
		createKeyed: createNode(sandbox, KEY),
		httpRequestRetry: httpRequestNode(service, { retry: true }),
		createPaced: createNode(paced, {}),
		createTwoWorkflows: createNode(sandbox, {}),
		createGrownBudget: createNode(sandbox, {}),
	};
	const flows = RUSH_FLOWS.map((flow) => webhookTo(flow, 'mpRush', RUSH_FLOW_LABELS[flow], sending[flow]));
	const two = flows.find((workflow) => workflow.flow === 'createTwoWorkflows') as RushWorkflow<RushFlow>;
	two.companion = webhookTo('createTwoWorkflows2', 'mpRushB', `${RUSH_FLOW_LABELS.createTwoWorkflows}, second workflow`, createNode(sandbox, {}));
	two.refusal = { status: 503, retryAfter: RETRY_AFTER_HTTP_DATE };
	(flows.find((workflow) => workflow.flow === 'createGrownBudget') as RushWorkflow<RushFlow>).budgetTimes = 2;
	return flows;
}

/** The files of workflows to import: each with its companion. */
export const workflowFilesOf = (workflows: ReadonlyArray<RushWorkflow<string>>) => workflows.flatMap((workflow) => [workflow.file, ...(workflow.companion === undefined ? [] : [workflow.companion.file])]);

/** Adds a second webhook -> Split Out into the workflow's first node after its webhook, taking batches of orders (`batchBody`). */
function withBatchWebhook<Flow extends string>(workflow: RushWorkflow<Flow>, label: string): RushWorkflow<Flow> {
	const first = workflow.file.nodes[1];
	const fillPath = `${workflow.webhookPath}-batch`;
	const batch = webhookNode(label, fillPath, 200);
	const split = node('One Item per Order', 130, 200, { type: 'n8n-nodes-base.splitOut', typeVersion: 1, parameters: { fieldToSplitOut: 'body.orders', options: {} } });
	workflow.file.nodes.push(batch, split);
	workflow.file.connections[batch.name] = link(split.name);
	workflow.file.connections[split.name] = link(first.name);
	return { ...workflow, fillPath };
}

/** The steady state's workflows, the keyed one first. */
export type SteadyWorkflows = [RushWorkflow<'steadyKeyed'>, ...Array<RushWorkflow<SteadyFlow>>];

/**
 * n8n's Remove Duplicates node keeping the orders whose id this node has not seen in earlier
 * executions, at x `x`. Its History Size is twice n8n's 10,000: the node refuses an execution
 * whose items would take its history past that size, so a shop's workflow keeps room beyond
 * the 10,000 orders the history is filled with.
 */
function removeDuplicatesNode(x: number): WorkflowNode {
	return node('Skip Orders Seen Before', x, 0, {
		type: 'n8n-nodes-base.removeDuplicates',
		typeVersion: 2,
		parameters: { operation: 'removeItemsSeenInPreviousExecutions', dedupeValue: KEY.deduplicationKey, options: { historySize: 20_000 } },
	});
}

/**
 * The steady state's workflows: keyed Create and Remove Duplicates before the HTTP Request node
 * with the Header Auth credential; Create without the key and that HTTP Request node alone; with
 * `compare`, the HTTP Request node with its header written in it. The keyed ones have a second
 * webhook into the same nodes, so that the history the measured orders meet is the one they wrote.
 */
export function steadyWorkflows(sandbox: Credential, header: Credential, service: Service, compare: boolean): SteadyWorkflows {
	const fillLabel = 'Order Batch Webhook (fills the key history)';
	const keyed = withBatchWebhook(webhookTo('steadyKeyed', 'mpRush', RUSH_FLOW_LABELS.steadyKeyed, createNode(sandbox, KEY)), fillLabel);
	const credentialHttp = () => Object.assign(httpRequestNode(service, { header }), { position: [520, 0] });
	const removeDuplicates = withBatchWebhook(webhookTo('steadyRemoveDuplicates', 'mpRush', RUSH_FLOW_LABELS.steadyRemoveDuplicates, removeDuplicatesNode(260), credentialHttp()), fillLabel);
	const alone: Partial<Record<'steadyUnkeyed' | 'steadyCredentialHttpRequest' | 'steadyHttpRequest', WorkflowNode>> = {
		steadyUnkeyed: createNode(sandbox, {}),
		steadyCredentialHttpRequest: httpRequestNode(service, { header }),
		...(compare ? { steadyHttpRequest: httpRequestNode(service) } : {}),
	};
	return [keyed, removeDuplicates, ...Object.entries(alone).map(([flow, send]) => webhookTo(flow as SteadyFlow, 'mpRush', RUSH_FLOW_LABELS[flow as SteadyFlow], send))];
}

/**
 * A nightly bulk beside the shop's orders, on one account: the bulk's workflow takes its orders
 * in one batch (its Create with `bulkOptions`), the shop's one order per webhook call.
 */
export function bulkWorkflows(sandbox: Credential, bulkOptions: Record<string, unknown>): [RushWorkflow<'bulk'>, RushWorkflow<'bulkSmall'>] {
	const bulk = withBatchWebhook(webhookTo('bulk', 'mpBulk', 'nightly bulk', createNode(sandbox, bulkOptions)), 'Nightly Orders Webhook');
	return [bulk, webhookTo('bulkSmall', 'mpBulk', 'shop orders beside the bulk', createNode(sandbox, {}))];
}

/** Keyed Create at a rush that n8n does not live through: killed (`crash`), or stopped (`stop`). */
export function crashWorkflow(sandbox: Credential, flow: 'crash' | 'stop'): RushWorkflow<'crash' | 'stop'> {
	return flow === 'crash'
		? webhookTo(flow, 'mpCrash', 'keyed Create, n8n killed mid-rush', createNode(sandbox, KEY))
		: webhookTo(flow, 'mpStop', 'keyed Create, n8n stopped mid-rush', createNode(sandbox, KEY));
}

/** Keyed Create whose executions n8n cancels after `executionTimeoutSeconds` (the workflow's Settings › Timeout Workflow). */
export function timeoutWorkflow(sandbox: Credential, executionTimeoutSeconds: number): RushWorkflow<'timeout'> {
	const workflow = webhookTo('timeout', 'mpTimeout', `keyed Create, Timeout Workflow ${executionTimeoutSeconds} s`, createNode(sandbox, KEY));
	workflow.file.settings = { executionOrder: 'v1', executionTimeout: executionTimeoutSeconds };
	return workflow;
}

/** How the service is out: answering 503 to every request, refusing every connection (nothing listens), or answering 429 to every request (a budget that carries none of a rush). */
export type OutageCause = 'unavailable' | 'unreachable' | 'refusing';

/** Keyed Create with a short Max Wait Seconds, On Error › Stop Workflow (n8n's default): an outage longer than it fails the executions. */
export function outageWorkflow(sandbox: Credential, maxWaitSeconds: number, cause: OutageCause): RushWorkflow<OutageCause> {
	return webhookTo(cause, 'mpOutage', `keyed Create, Max Wait Seconds ${maxWaitSeconds}, the service ${cause}`, createNode(sandbox, { ...KEY, maxWaitSeconds }));
}
