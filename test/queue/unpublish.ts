/**
 * Takes a published workflow off the running main instance, as the editor's Unpublish does
 * (test/peak/publish.ts signs in and publishes the same way, through n8n's REST API).
 */
import { SANDBOX_OWNER } from '../../scripts/editor';

const BROWSER_ID = 'queue-mode-test';

export async function unpublishWorkflow(port: number, id: string): Promise<void> {
	const base = `http://127.0.0.1:${port}`;
	const login = await fetch(`${base}/rest/login`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', 'browser-id': BROWSER_ID },
		body: JSON.stringify({ emailOrLdapLoginId: SANDBOX_OWNER.email, password: SANDBOX_OWNER.password }),
	});
	const cookie = login.headers.getSetCookie().find((value) => value.startsWith('n8n-auth='));
	if (!login.ok || cookie === undefined) throw new Error(`n8n login failed: HTTP ${login.status} ${await login.text()}`);
	const headers = { 'Content-Type': 'application/json', 'browser-id': BROWSER_ID, cookie: cookie.split(';')[0] };
	const response = await fetch(`${base}/rest/workflows/${id}/deactivate`, { method: 'POST', headers, body: '{}' });
	if (!response.ok) throw new Error(`unpublishing workflow ${id} failed: HTTP ${response.status} ${await response.text()}`);
}
