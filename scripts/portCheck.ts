import { createServer } from 'node:net';

import { editorUrl } from './editor';

/** Why listening on host:port fails right now, or undefined when it works (the socket is closed again). */
async function listenError(port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
	const server = createServer();
	return await new Promise((resolve) => {
		server.once('error', (error: NodeJS.ErrnoException) => resolve(error));
		server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(undefined)));
	});
}

/** Whether n8n could listen on the port: on 127.0.0.1 (where it will) and, where the machine has IPv6, on ::1. */
async function portProblem(port: number): Promise<string | undefined> {
	for (const host of ['127.0.0.1', '::1']) {
		const error = await listenError(port, host);
		if (error === undefined || error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT') continue;
		return error.code ?? error.message;
	}
	return undefined;
}

/** Whether what answers on the port is n8n (its public settings; the version is only shown after login). */
async function isN8n(port: number): Promise<boolean> {
	try {
		const response = await fetch(`http://127.0.0.1:${port}/rest/settings`, { signal: AbortSignal.timeout(2_000) });
		const settings = (await response.json()) as { data?: { settingsMode?: unknown; userManagement?: unknown } };
		return settings.data?.settingsMode !== undefined && settings.data.userManagement !== undefined;
	} catch {
		return false;
	}
}

async function nextFreePort(after: number): Promise<number | undefined> {
	for (let port = after + 1; port <= Math.min(after + 50, 65535); port++) {
		if ((await portProblem(port)) === undefined) return port;
	}
	return undefined;
}

/**
 * Refuses a port n8n could not listen on, before anything is started, saying what holds it
 * and how to start on another one.
 */
export async function refuseTakenPort(port: number): Promise<void> {
	const problem = await portProblem(port);
	if (problem === undefined) return;
	const free = await nextFreePort(port);
	const elsewhere =
		free === undefined
			? 'or start on another port: npm start -- --port <number> (or N8N_PORT=<number> npm start).'
			: `or start on a free port: npm start -- --port ${free} (or N8N_PORT=${free} npm start).`;
	if (problem === 'EACCES') {
		throw new Error(`Port ${port} needs administrator rights to listen on. Choose a port above 1023, ${elsewhere.replace(/^or /, '')}`);
	}
	const holder = (await isN8n(port))
		? `Port ${port} is already in use by n8n, perhaps another "npm start". Open ${editorUrl(port)} to use it, stop it (Ctrl-C in its terminal), ${elsewhere}`
		: `Port ${port} is already in use by another program. Stop that program, ${elsewhere}`;
	throw new Error(`${holder}\nNothing was started.`);
}
