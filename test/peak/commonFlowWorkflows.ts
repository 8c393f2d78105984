/**
 * The common flow as shops build it, three ways, each a fresh workflow: Webhook (POST, Respond:
 * Immediately) -> one node that sends the order's transaction: Transaction › Create without a
 * key, Transaction › Create with the order id as Deduplication Key, and n8n's HTTP Request node
 * making the same POST (the baseline).
 */
import { randomUUID } from 'node:crypto';

import type { WorkflowFile, WorkflowNode } from '../e2e/workflowFile';
import { HTTP_REQUEST_NODE, httpRequestParameters } from './httpRequestNode';
import { orderConfirmationParameters } from './workflows';

export const COMMON_FLOWS = ['create', 'createKeyed', 'httpRequest'] as const;
export type CommonFlow = (typeof COMMON_FLOWS)[number];

export const COMMON_FLOW_LABELS: Record<CommonFlow, string> = {
	create: 'Create',
	createKeyed: 'Create with the order id as Deduplication Key',
	httpRequest: 'HTTP Request node, the same POST',
};

export interface CommonFlowWorkflow {
	flow: CommonFlow;
	file: WorkflowFile;
	webhookPath: string;
}

function sendingNode(flow: CommonFlow, credential: { id: string; name: string }, service: { baseUrl: string; apiKey: string }): WorkflowNode {
	const base = { id: randomUUID(), name: 'Send Order Confirmation', position: [260, 0] as [number, number] };
	if (flow === 'httpRequest') return { ...base, ...HTTP_REQUEST_NODE, parameters: httpRequestParameters('$json.body', service) };
	const options = flow === 'createKeyed' ? { deduplicationKey: '={{ $json.body.id }}' } : {};
	return {
		...base,
		type: 'n8n-nodes-mailing-platform.mailingPlatform',
		typeVersion: 1,
		parameters: orderConfirmationParameters('$json.body', options),
		credentials: { mailingPlatformApi: { id: credential.id, name: credential.name } },
	};
}

/** The three workflows; ids are 16 characters like n8n's own. */
export function commonFlowWorkflows(credential: { id: string; name: string }, service: { baseUrl: string; apiKey: string }): CommonFlowWorkflow[] {
	return COMMON_FLOWS.map((flow) => {
		const webhookPath = `common-flow-${flow}`;
		const webhook: WorkflowNode = {
			id: randomUUID(),
			name: 'Shop Order Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			parameters: { httpMethod: 'POST', path: webhookPath, responseMode: 'onReceived', options: {} },
			webhookId: randomUUID(),
		};
		const send = sendingNode(flow, credential, service);
		const file: WorkflowFile = {
			id: `mpCommon${flow}`.padEnd(16, '0').slice(0, 16),
			name: `Common flow: ${COMMON_FLOW_LABELS[flow]}`,
			nodes: [webhook, send],
			connections: { [webhook.name]: { main: [[{ node: send.name, type: 'main', index: 0 }]] } },
			active: false,
			settings: { executionOrder: 'v1' },
		};
		return { flow, file, webhookPath };
	});
}
