import { type BackgroundProcess, waitUntilReady } from './processes';

/** n8n's own default port; `--port N` or N8N_PORT choose another. */
export const DEFAULT_EDITOR_PORT = 5678;

/** The value of `--name V` or `--name=V` in `argv`: undefined when not given, empty when given without a value. */
export function optionValue(argv: string[], name: string): string | undefined {
	const index = argv.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
	if (index === -1) return undefined;
	return (argv[index].includes('=') ? argv[index].split('=')[1] : argv[index + 1]) ?? '';
}

/** The editor's port from `--port N` / `--port=N`, else N8N_PORT, else 5678. */
export function editorPort(argv: string[] = process.argv.slice(2), env: NodeJS.ProcessEnv = process.env): number {
	const given = optionValue(argv, 'port') ?? env.N8N_PORT;
	if (given === undefined || given === '') return DEFAULT_EDITOR_PORT;
	const port = Number(given);
	if (!Number.isInteger(port) || port < 1 || port > 65535) {
		throw new Error(`The port "${given}" is not a port number (1 to 65535). Example: npm start -- --port 5679`);
	}
	return port;
}

/** The address a user opens in the browser. */
export function editorUrl(port: number): string {
	return `http://localhost:${port}`;
}

const apiBase = (port: number) => `http://127.0.0.1:${port}`;

/** The local editor's owner account (n8n 2.x requires one); only for this machine's sandbox. */
export const SANDBOX_OWNER = {
	email: 'owner@sandbox.localhost',
	firstName: 'Sandbox',
	lastName: 'Owner',
	password: 'Sandbox-Owner-1',
};

/**
 * Waits until the REST API answers (the health endpoint turns ready before the API routes are
 * mounted); gives up when n8n exits or after `limitMs`, showing what it printed.
 */
export async function waitForEditor(port: number, server: BackgroundProcess, limitMs: number): Promise<void> {
	const apiAnswers = async () => {
		try {
			const response = await fetch(`${apiBase(port)}/rest/settings`, { signal: AbortSignal.timeout(2_000) });
			return response.ok && (response.headers.get('content-type') ?? '').includes('application/json');
		} catch {
			return false; // Not listening yet.
		}
	};
	await waitUntilReady('n8n', server, apiAnswers, limitMs);
}

/** Creates the owner on the first start (POST /rest/owner/setup); later starts find it set up. */
export async function ensureOwner(port: number): Promise<void> {
	const settings = (await (await fetch(`${apiBase(port)}/rest/settings`)).json()) as {
		data?: { userManagement?: { showSetupOnFirstLoad?: boolean } };
	};
	if (settings.data?.userManagement?.showSetupOnFirstLoad !== true) return;
	const response = await fetch(`${apiBase(port)}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(SANDBOX_OWNER),
	});
	if (!response.ok) throw new Error(`Owner setup failed: ${response.status} ${await response.text()}`);
}
