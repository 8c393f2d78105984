/**
 * Publishes imported workflows (and takes them off again) through a running n8n's REST API, as
 * the editor's Publish and Unpublish buttons do: webhooks are served only for published workflows, and one `n8n publish:workflow` per
 * workflow would start n8n's CLI once for each (seconds apiece on a busy machine).
 */
import { ensureOwner, SANDBOX_OWNER } from '../../scripts/editor';

/** n8n ties its login cookie to the browser's id when one is sent; one fixed id serves every call. */
const BROWSER_ID = 'peak-load-test';

async function signIn(base: string): Promise<string> {
	const response = await fetch(`${base}/rest/login`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', 'browser-id': BROWSER_ID },
		body: JSON.stringify({ emailOrLdapLoginId: SANDBOX_OWNER.email, password: SANDBOX_OWNER.password }),
	});
	const cookie = response.headers.getSetCookie().find((value) => value.startsWith('n8n-auth='));
	if (!response.ok || cookie === undefined) throw new Error(`n8n login failed: HTTP ${response.status} ${await response.text()}`);
	return cookie.split(';')[0];
}

/** The REST API's address and the headers of a signed-in owner. */
export async function signedIn(port: number): Promise<{ base: string; headers: Record<string, string> }> {
	const base = `http://127.0.0.1:${port}`;
	return { base, headers: { 'Content-Type': 'application/json', 'browser-id': BROWSER_ID, cookie: await signIn(base) } };
}

/** Sets up n8n's owner on first use, signs in and publishes each workflow's current version. */
export async function publishWorkflows(port: number, workflowIds: string[]): Promise<void> {
	const base = `http://127.0.0.1:${port}`;
	await ensureOwner(port);
	const headers = { 'Content-Type': 'application/json', 'browser-id': BROWSER_ID, cookie: await signIn(base) };
	for (const id of workflowIds) {
		const read = await fetch(`${base}/rest/workflows/${id}`, { headers });
		if (!read.ok) throw new Error(`reading workflow ${id} failed: HTTP ${read.status} ${await read.text()}`);
		const { data } = (await read.json()) as { data: { versionId: string } };
		const published = await fetch(`${base}/rest/workflows/${id}/activate`, { method: 'POST', headers, body: JSON.stringify({ versionId: data.versionId }) });
		if (!published.ok) throw new Error(`publishing workflow ${id} failed: HTTP ${published.status} ${await published.text()}`);
	}
}

/** Takes a published workflow off the running n8n, as the editor's Unpublish does. */
export async function unpublishWorkflow(port: number, id: string): Promise<void> {
	const base = `http://127.0.0.1:${port}`;
	const headers = { 'Content-Type': 'application/json', 'browser-id': BROWSER_ID, cookie: await signIn(base) };
	const response = await fetch(`${base}/rest/workflows/${id}/deactivate`, { method: 'POST', headers, body: '{}' });
	if (!response.ok) throw new Error(`unpublishing workflow ${id} failed: HTTP ${response.status} ${await response.text()}`);
}

/** A credential's data as the running n8n holds it (the editor's read, which includes the data for its owner). */
export async function credentialData(port: number, id: string): Promise<Record<string, unknown>> {
	const base = `http://127.0.0.1:${port}`;
	const headers = { 'browser-id': BROWSER_ID, cookie: await signIn(base) };
	const read = await fetch(`${base}/rest/credentials/${id}?includeData=true`, { headers });
	if (!read.ok) throw new Error(`reading credential ${id} failed: HTTP ${read.status} ${await read.text()}`);
	const { data } = (await read.json()) as { data: { data?: Record<string, unknown> } };
	return data.data ?? {};
}

/**
 * Signs in and answers how to stop running executions at once, as the Stop of n8n's executions
 * list does; the stop answers what n8n said to each stop it refused, by id. Signing in first
 * keeps its time (a password hash, slow on a busy machine) out of the moment of the stop.
 */
export async function executionStopper(port: number): Promise<(ids: readonly string[]) => Promise<Map<string, string>>> {
	const { base, headers } = await signedIn(port);
	return async (ids) => {
		const refused = new Map<string, string>();
		await Promise.all(
			ids.map(async (id) => {
				const response = await fetch(`${base}/rest/executions/${id}/stop`, { method: 'POST', headers, body: '{}' });
				if (!response.ok) refused.set(id, `HTTP ${response.status} ${(await response.text()).slice(0, 200)}`);
			}),
		);
		return refused;
	};
}

