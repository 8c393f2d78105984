/**
 * The orders and blocks workflows of the queue-mode run, as a user would build them in the
 * editor (the peak-load scenarios bring their own). Built in code because they point at
 * addresses known only at run time.
 */
import { randomUUID } from 'node:crypto';

import type { WorkflowFile, WorkflowNode } from '../e2e/workflowFile';
import { orderConfirmationParameters } from '../peak/workflows';

export const ORDERS_WORKFLOW_ID = 'mpQueueOrders001';
export const BLOCKS_WORKFLOW_ID = 'mpQueueBlocks001';
export const ORDERS_WEBHOOK_PATH = 'queue-orders';


/**
 * Polls every 10 s keep the run short, but n8n refuses a poll time under a minute: 2.8 one whose
 * seconds field holds a "*", 2.41 one whose seconds field is not a single number. So the
 * trigger's standard Poll Times parameter gets six custom entries, one per tenth of a minute,
 * each polling once a minute.
 */
const POLL_EVERY_10_SECONDS = [0, 10, 20, 30, 40, 50].map((second) => ({ mode: 'custom', cronExpression: `${second} * * * * *` }));

const credentials = (id: string, name: string) => ({ mailingPlatformApi: { id, name } });

function node(name: string, type: string, typeVersion: number, x: number, parameters: Record<string, unknown>): WorkflowNode {
	return { id: randomUUID(), name, type, typeVersion, position: [x, 0], parameters };
}

function chain(nodes: WorkflowNode[]): WorkflowFile['connections'] {
	const connections: WorkflowFile['connections'] = {};
	for (let index = 0; index + 1 < nodes.length; index++) {
		connections[nodes[index].name] = { main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]] };
	}
	return connections;
}

function workflow(id: string, name: string, nodes: WorkflowNode[]): WorkflowFile {
	return { id, name, nodes, connections: chain(nodes), active: false, settings: { executionOrder: 'v1' } };
}

/**
 * Webhook (POST `{ orders: [...] }`, answered at once, as a shop wants) -> Split Out ->
 * Transaction › Create: one transaction per order, batched into few requests.
 */
export function ordersWorkflow(credential: { id: string; name: string }): WorkflowFile {
	const create = node('Send Order Confirmation', 'n8n-nodes-mailing-platform.mailingPlatform', 1, 440, orderConfirmationParameters('$json'));
	create.credentials = credentials(credential.id, credential.name);
	const webhook = node('Shop Orders', 'n8n-nodes-base.webhook', 2, 0, {
		httpMethod: 'POST',
		path: ORDERS_WEBHOOK_PATH,
		responseMode: 'onReceived',
		options: {},
	});
	webhook.webhookId = 'a7d3c1e2-5b4f-4c6d-9e8f-0a1b2c3d4e5f';
	const split = node('One Item per Order', 'n8n-nodes-base.splitOut', 1, 220, { fieldToSplitOut: 'body.orders', options: {} });
	return workflow(ORDERS_WORKFLOW_ID, 'Queue mode: shop orders to transactions', [webhook, split, create]);
}

/** Mailing Platform Trigger -> HTTP Request posting each emitted block, with its execution id, to `collectorUrl`. */
export function blocksWorkflow(credential: { id: string; name: string }, collectorUrl: string): WorkflowFile {
	const trigger = node('Block Status Changed', 'n8n-nodes-mailing-platform.mailingPlatformTrigger', 1, 0, {
		event: 'blockStatusChanged',
		simplify: true,
		filters: {},
		pollTimes: { item: POLL_EVERY_10_SECONDS },
	});
	trigger.credentials = credentials(credential.id, credential.name);
	const report = node('Report Block', 'n8n-nodes-base.httpRequest', 4.2, 220, {
		method: 'POST',
		url: collectorUrl,
		sendBody: true,
		specifyBody: 'json',
		jsonBody: '={{ JSON.stringify({ executionId: $execution.id, block: $json }) }}',
		options: {},
	});
	return workflow(BLOCKS_WORKFLOW_ID, 'Queue mode: block status changes', [trigger, report]);
}
