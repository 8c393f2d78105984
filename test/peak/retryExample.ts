/**
 * The README's retry for a shop that delivers once, set up as a user does it (issue 57): an n8n
 * API key with the execution scopes (Settings › n8n API), an n8n API credential holding it, and
 * examples/retry-orders-not-sent.json imported with only that credential and the shop workflow
 * filled in, then published. From then on n8n itself retries, every minute, what the shop
 * workflow did not send; the scenarios only watch.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { projectRoot } from '../../scripts/n8n';
import type { WorkflowFile } from '../e2e/workflowFile';
import { publishWorkflows, signedIn } from './publish';

export const RETRY_EXAMPLE = 'examples/retry-orders-not-sent.json';

/** The example's nodes that call n8n's API, and the one that names the shop workflow. */
const API_NODES = ['Executions of the Shop Workflow', 'Crashed Executions of It', 'Retry'];
const WATCHING_NODE = 'Executions of the Shop Workflow';
/** What the key may do, as a user ticks it: list, read and retry executions. */
const SCOPES = ['execution:list', 'execution:read', 'execution:retry'];

export type Session = Awaited<ReturnType<typeof signedIn>>;

async function call<T>({ base, headers }: Session, path: string, body?: unknown): Promise<T> {
	const response = await fetch(`${base}/rest${path}`, { method: body === undefined ? 'GET' : 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
	if (!response.ok) throw new Error(`n8n's ${path} failed: HTTP ${response.status} ${(await response.text()).slice(0, 300)}`);
	return ((await response.json()) as { data: T }).data;
}

/** An n8n API credential holding a new API key with `scopes`, created as a user does in Settings › n8n API. */
export async function n8nApiCredential(session: Session, port: number, label: string, scopes: readonly string[]): Promise<{ id: string; name: string }> {
	const granted = (await call<string[]>(session, '/api-keys/scopes')).filter((scope) => scopes.includes(scope));
	const { rawApiKey } = await call<{ rawApiKey: string }>(session, '/api-keys', { label, expiresAt: null, scopes: granted });
	return await call<{ id: string; name: string }>(session, '/credentials', {
		name: 'n8n API',
		type: 'n8nApi',
		data: { apiKey: rawApiKey, baseUrl: `http://localhost:${port}/api/v1` },
	});
}

/** Creates the example workflow as `fill` changed it, and publishes it; answers its id. */
export async function createPublished(session: Session, port: number, examplePath: string, fill: (node: WorkflowFile['nodes'][number]) => void): Promise<string> {
	const example = JSON.parse(await readFile(join(projectRoot, examplePath), 'utf8')) as WorkflowFile;
	for (const node of example.nodes) fill(node);
	const { id } = await call<{ id: string }>(session, '/workflows', { name: example.name, nodes: example.nodes, connections: example.connections, settings: example.settings, active: false });
	await publishWorkflows(port, [id]);
	return id;
}

/** Sets up the example to retry the executions of `shopWorkflowId` on the n8n at `port`, and publishes it; answers its workflow's id. */
export async function installRetryExample(port: number, shopWorkflowId: string): Promise<string> {
	// One sign-in for every call: each costs n8n a password hash.
	const session = await signedIn(port);
	const credential = await n8nApiCredential(session, port, `Retry orders not sent ${shopWorkflowId}`, SCOPES);
	return await createPublished(session, port, RETRY_EXAMPLE, (node) => {
		if (API_NODES.includes(node.name)) node.credentials = { n8nApi: { id: credential.id, name: credential.name } };
		if (node.name === WATCHING_NODE) (node.parameters.filters as Record<string, unknown>).workflowId = { __rl: true, mode: 'id', value: shopWorkflowId };
	});
}
