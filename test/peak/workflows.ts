/**
 * The workflows the peak-load scenarios deliver orders to, one fresh copy per scenario and
 * variant, so that no scenario sees another's keys and each starts as a newly published node:
 * Webhook (POST, Respond: Immediately) -> Transaction › Create, with or without the order id as
 * Deduplication Key; or the strict arrangement of examples/, a Redis counter in front of Create.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { projectRoot } from '../../scripts/n8n';
import { readmeKeyExpression } from '../e2e/readmeKey';
import type { WorkflowFile, WorkflowNode } from '../e2e/workflowFile';

/** The transaction type the orders are sent as; each run creates it in the double. */
export const ORDER_TYPE = { id: 10, name: 'order_confirmation' };

export const STRICT_EXAMPLE = 'examples/shop-order-sent-once-redis.json';

/** How the orders reach the service: the node's Deduplication Key, no key at all, or the strict arrangement. */
export type Variant = 'keyed' | 'plain' | 'strict';

export interface ScenarioWorkflow {
	file: WorkflowFile;
	webhookPath: string;
	/** The node whose output holds the order, in the run data. */
	webhookNode: string;
}

const WEBHOOK_NODE = 'Shop Order Webhook';

function node(name: string, type: string, typeVersion: number, x: number, parameters: Record<string, unknown>): WorkflowNode {
	return { id: randomUUID(), name, type, typeVersion, position: [x, 0], parameters };
}

/** Transaction › Create of one shop order found at `order` (an expression's path, e.g. `$json.body`), with `options`. */
export function orderConfirmationParameters(order: string, options: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		resource: 'transaction',
		operation: 'create',
		inputMode: 'fields',
		typeBy: 'id',
		typeId: ORDER_TYPE.id,
		contactMode: 'import',
		contactEmail: `={{ ${order}.email }}`,
		permission: 3,
		content: `={{ { "order.id": ${order}.id, "order.total": ${order}.total } }}`,
		options,
	};
}

/**
 * Create sends one transaction per order; its error output takes what the service did not
 * queue (refused, 503 after the retries), so such an order leaves a successful execution, as a
 * shop's workflow should, and is sent when the order is delivered again.
 */
function keyedOrPlain(variant: 'keyed' | 'plain', credential: { id: string; name: string }, id: string, path: string): WorkflowFile {
	const webhook = node(WEBHOOK_NODE, 'n8n-nodes-base.webhook', 2, 0, { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} });
	webhook.webhookId = randomUUID();
	const create = node(
		'Send Order Confirmation',
		'n8n-nodes-mailing-platform.mailingPlatform',
		1,
		260,
		// The keyed flow takes the key as the README tells a user to write it.
		orderConfirmationParameters('$json.body', variant === 'keyed' ? { deduplicationKey: `=${readmeKeyExpression()}` } : {}),
	);
	create.credentials = { mailingPlatformApi: { id: credential.id, name: credential.name } };
	create.onError = 'continueErrorOutput';
	const notQueued = node('Not Queued', 'n8n-nodes-base.noOp', 1, 520, {});
	return {
		id,
		name: `Peak: orders to transactions (${variant === 'keyed' ? 'order id as Deduplication Key' : 'no key'}) ${path}`,
		nodes: [webhook, create, notQueued],
		connections: {
			[webhook.name]: { main: [[{ node: create.name, type: 'main', index: 0 }]] },
			[create.name]: { main: [[], [{ node: notQueued.name, type: 'main', index: 0 }]] },
		},
		active: false,
		settings: { executionOrder: 'v1' },
	};
}

/** The example as shipped, under its own id and webhook path; it refers to the sandbox credential and its Redis credential by id. */
function strict(id: string, path: string): WorkflowFile {
	const file = JSON.parse(readFileSync(join(projectRoot, STRICT_EXAMPLE), 'utf8')) as WorkflowFile;
	const webhook = file.nodes.find((candidate) => candidate.name === WEBHOOK_NODE);
	if (webhook === undefined) throw new Error(`${STRICT_EXAMPLE} has no node "${WEBHOOK_NODE}"`);
	webhook.parameters = { ...webhook.parameters, path };
	webhook.webhookId = randomUUID();
	delete file.pinData;
	return { ...file, id, name: `${file.name} ${path}`, active: false };
}

/** A fresh workflow for one scenario (`scenario`: its letter) and variant; its id is 16 characters like n8n's own. */
export function scenarioWorkflow(variant: Variant, scenario: string, credential: { id: string; name: string }): ScenarioWorkflow {
	const webhookPath = `peak-${scenario}-${variant}`;
	const id = `mpPeak${scenario.toUpperCase()}${variant}`.padEnd(16, '0');
	const file = variant === 'strict' ? strict(id, webhookPath) : keyedOrPlain(variant, credential, id, webhookPath);
	return { file, webhookPath, webhookNode: WEBHOOK_NODE };
}
