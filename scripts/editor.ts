import { setTimeout as sleep } from 'node:timers/promises';

export const EDITOR_PORT = 5678;
const editorBase = `http://127.0.0.1:${EDITOR_PORT}`;

/** The local editor's owner account (n8n 2.x requires one); only for this machine's sandbox. */
export const SANDBOX_OWNER = {
	email: 'owner@sandbox.localhost',
	firstName: 'Sandbox',
	lastName: 'Owner',
	password: 'Sandbox-Owner-1',
};

/**
 * Waits until the REST API answers (the health endpoint turns ready before the API routes are
 * mounted); gives up after `limitMs`, showing what n8n printed.
 */
export async function waitUntilReady(limitMs: number, recentOutput: () => string): Promise<void> {
	const deadline = Date.now() + limitMs;
	while (Date.now() < deadline) {
		try {
			const response = await fetch(`${editorBase}/rest/settings`, { signal: AbortSignal.timeout(2_000) });
			if (response.ok && (response.headers.get('content-type') ?? '').includes('application/json')) return;
		} catch {
			// Not listening yet.
		}
		await sleep(500);
	}
	throw new Error(`n8n did not become ready within ${limitMs / 1000} s:\n${recentOutput()}`);
}

/** Creates the owner on the first start (POST /rest/owner/setup); later starts find it set up. */
export async function ensureOwner(): Promise<void> {
	const settings = (await (await fetch(`${editorBase}/rest/settings`)).json()) as {
		data?: { userManagement?: { showSetupOnFirstLoad?: boolean } };
	};
	if (settings.data?.userManagement?.showSetupOnFirstLoad !== true) return;
	const response = await fetch(`${editorBase}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(SANDBOX_OWNER),
	});
	if (!response.ok) throw new Error(`Owner setup failed: ${response.status} ${await response.text()}`);
}

/** Logs in as the owner and returns the session cookie (name=value). */
export async function loginCookie(): Promise<{ name: string; value: string }> {
	const response = await fetch(`${editorBase}/rest/login`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ emailOrLdapLoginId: SANDBOX_OWNER.email, password: SANDBOX_OWNER.password }),
	});
	if (!response.ok) throw new Error(`Login failed: ${response.status} ${await response.text()}`);
	const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
	const separator = cookie.indexOf('=');
	return { name: cookie.slice(0, separator), value: cookie.slice(separator + 1) };
}
