/**
 * n8n in queue mode: one main instance and `n8n worker`s sharing one Postgres, one Redis, one
 * encryption key and one user folder (with the community package installed in it). Each
 * process has its own HTTP, task-broker and health-check port and writes its log to a file,
 * which is the record of which worker ran which execution.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { freePort, n8nBin, n8nCommand, n8nEnvironment, projectRoot, startN8nServer } from '../../scripts/n8n';
import { type BackgroundProcess, startBackground, waitUntilReady } from '../../scripts/processes';
import { DATABASE_NAME, DATABASE_USER, sql } from './postgres';

export interface ClusterSettings {
	userFolder: string;
	logFolder: string;
	postgresPort: number;
	redisPort: number;
	/** The main instance's HTTP port, the same across its restarts: the address of its webhooks and API for every process. */
	mainPort: number;
	/** Every process started, appended at once, so that a failed start is stopped too. */
	started: BackgroundProcess[];
}

export interface N8nInstance {
	name: string;
	/** HTTP port: the editor and webhooks for the main instance, the health check for a worker. */
	port: number;
	logFile: string;
	process: BackgroundProcess;
}

const START_LIMIT_MS = 240_000;

/** The environment every process of the setup shares, plus what is its own. */
export async function queueEnvironment(settings: ClusterSettings, name: string, own: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
	const env = await n8nEnvironment(settings.userFolder, {
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: '127.0.0.1',
		DB_POSTGRESDB_PORT: String(settings.postgresPort),
		DB_POSTGRESDB_DATABASE: DATABASE_NAME,
		DB_POSTGRESDB_USER: DATABASE_USER,
		EXECUTIONS_MODE: 'queue',
		// n8n 2.8 warns that manual executions will move to workers; opting in now.
		OFFLOAD_MANUAL_EXECUTIONS_TO_WORKERS: 'true',
		QUEUE_BULL_REDIS_HOST: '127.0.0.1',
		QUEUE_BULL_REDIS_PORT: String(settings.redisPort),
		// Where workers' executions reach main's webhooks and API ($execution.resumeUrl), as a queue-mode setup sets it.
		WEBHOOK_URL: `http://127.0.0.1:${settings.mainPort}/`,
		N8N_LOG_OUTPUT: 'console,file',
		N8N_LOG_FILE_LOCATION: join(settings.logFolder, `${name}.log`),
		...own,
	});
	// n8n's default zone (America/New_York) is part of what is checked: the platform's is another.
	delete env.GENERIC_TIMEZONE;
	return env;
}

/** Runs an n8n CLI command (import, publish) against the shared database. */
export async function cliCommand(settings: ClusterSettings, args: string[]): Promise<void> {
	await n8nCommand(args, await queueEnvironment(settings, 'cli'));
}

/**
 * n8n 2.41 activates published workflows in the background (through its publication outbox), at
 * start even after it says the editor is accessible: waits until each published workflow has its
 * triggers recorded as activated for its published version. n8n 2.8 keeps no such record; it
 * activates them before it says so, and a publication through its REST API is done when answered.
 */
export async function waitUntilPublished(postgresPort: number): Promise<void> {
	const [[recorded]] = await sql(postgresPort, `SELECT to_regclass('workflow_publication_trigger_status') IS NOT NULL`);
	if (recorded !== 't') return;
	const pending =
		`SELECT w.id FROM workflow_entity w WHERE w."activeVersionId" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM workflow_publication_trigger_status s ` +
		`WHERE s."workflowId" = w.id AND s."versionId" = w."activeVersionId" AND s.status = 'activated')`;
	const deadline = Date.now() + START_LIMIT_MS;
	for (;;) {
		const ids = (await sql(postgresPort, pending)).map(([id]) => id);
		if (ids.length === 0) return;
		if (Date.now() > deadline) throw new Error(`published workflows not activated within ${START_LIMIT_MS / 1000} s: ${ids.join(', ')}`);
		await sleep(250);
	}
}

/** Starts the main instance; resolves once every published workflow is activated. */
export async function startMain(settings: ClusterSettings): Promise<N8nInstance> {
	const port = settings.mainPort;
	const env = await queueEnvironment(settings, 'main', { N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1' });
	const process = startN8nServer(env);
	settings.started.push(process);
	const instance = { name: 'main', port, logFile: env.N8N_LOG_FILE_LOCATION as string, process };
	// Printed after the HTTP server is up (and, before n8n 2.41, the published workflows are activated).
	await waitUntilReady('n8n main', process, async () => process.recentOutput().includes('Editor is now accessible via'), START_LIMIT_MS);
	await waitUntilPublished(settings.postgresPort);
	return instance;
}

/** Starts `n8n worker` number `index`; resolves once its health check says it is ready. */
export async function startWorker(settings: ClusterSettings, index: number, concurrency: number): Promise<N8nInstance> {
	const port = await freePort();
	const name = `worker${index}`;
	const env = await queueEnvironment(settings, name, { QUEUE_HEALTH_CHECK_ACTIVE: 'true', QUEUE_HEALTH_CHECK_PORT: String(port) });
	const process = startBackground(globalThis.process.execPath, [n8nBin(), 'worker', `--concurrency=${concurrency}`], { cwd: projectRoot, env });
	settings.started.push(process);
	const instance = { name, port, logFile: env.N8N_LOG_FILE_LOCATION as string, process };
	const ready = async () => {
		try {
			return (await fetch(`http://127.0.0.1:${port}/healthz/readiness`, { signal: AbortSignal.timeout(2_000) })).ok;
		} catch {
			return false;
		}
	};
	await waitUntilReady(`n8n ${name}`, process, ready, START_LIMIT_MS);
	return instance;
}

export interface MainStop {
	signal: 'SIGTERM' | 'SIGKILL';
	/** From the signal to main's exit. */
	seconds: number;
	/** Executions Postgres held as new, running or waiting, read as soon as the signal was sent. */
	unfinished: number;
	/** The active executions main said it waited for ("Waiting for N active executions to finish"), when it did. */
	waitedFor?: number;
}

/** Sends `signal` to the main instance at once and resolves once it has exited, with what its stop took and waited for. */
export async function stopMain(main: N8nInstance, signal: MainStop['signal'], postgresPort: number): Promise<MainStop> {
	const since = performance.now();
	if (main.process.child.pid !== undefined) process.kill(-main.process.child.pid, signal);
	const unfinished = sql(postgresPort, `SELECT count(*) FROM execution_entity WHERE status IN ('new', 'running', 'waiting')`);
	await main.process.exited;
	const seconds = (performance.now() - since) / 1000;
	const waiting = /Waiting for (\d+) active executions to finish/.exec(main.process.recentOutput());
	return { signal, seconds, unfinished: Number((await unfinished)[0][0]), waitedFor: waiting === null ? undefined : Number(waiting[1]) };
}

interface LogEntry {
	message?: string;
	metadata?: { executionId?: string; success?: boolean };
}

async function logEntries(instance: N8nInstance): Promise<LogEntry[]> {
	const text = await readFile(instance.logFile, 'utf8').catch(() => '');
	return text
		.split('\n')
		.filter((line) => line.startsWith('{'))
		.map((line) => JSON.parse(line) as LogEntry);
}

/** Executions a worker finished, by id, with whether each succeeded (from the worker's log). */
export async function finishedExecutions(worker: N8nInstance): Promise<Map<string, boolean>> {
	const finished = new Map<string, boolean>();
	for (const entry of await logEntries(worker)) {
		const { executionId, success } = entry.metadata ?? {};
		if (entry.message?.startsWith('Worker finished execution') && executionId !== undefined) finished.set(String(executionId), success === true);
	}
	return finished;
}

/** Resident memory of an n8n process (its Node.js process), now and at its peak, in MiB. */
export async function memoryOf(instance: N8nInstance): Promise<{ rssMiB: number; peakMiB: number }> {
	const status = await readFile(`/proc/${instance.process.child.pid}/status`, 'utf8');
	const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
	return { rssMiB: Math.round(kib('VmRSS') / 1024), peakMiB: Math.round(kib('VmHWM') / 1024) };
}
