/**
 * The services n8n's queue mode needs besides Postgres (postgres.ts), private to one run: a Redis
 * from Debian's package, listening on a free loopback port, with its files in the run's temporary
 * folder. And what the run needs of Debian's packages, installed when missing.
 */
import { execFileSync } from 'node:child_process';

import { freePort } from '../../scripts/n8n';
import { type BackgroundProcess, run, runOrThrow, startBackground, waitUntilReady } from '../../scripts/processes';
import { debianPostgresBin, ensureRegistryPostgres, type PostgresSource } from './postgres';

function onPath(command: string): boolean {
	try {
		execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

/** Debian's packages the run needs, each with the check that says it is there. */
function debianPackages(postgres: PostgresSource): Array<{ name: string; installed: () => boolean }> {
	const redis = { name: 'redis-server', installed: () => onPath('redis-server') };
	// The registry's Postgres brings no client: psql and pg_isready come from Debian's.
	if (postgres === 'registry') return [{ name: 'postgresql-client', installed: () => onPath('psql') && onPath('pg_isready') }, redis];
	return [{ name: 'postgresql', installed: () => debianPostgresBin() !== undefined && onPath('psql') }, redis];
}

/**
 * Installs what the run needs and is missing: Debian's packages (with apt-get, as root or
 * through sudo) and, for `postgres` from the registry, its server into the test-tools folder.
 */
export async function ensureServicesInstalled(postgres: PostgresSource, log: (line: string) => void): Promise<void> {
	const missing = debianPackages(postgres).filter((wanted) => !wanted.installed());
	if (missing.length > 0) {
		const names = missing.map((wanted) => wanted.name);
		log(`Installing ${names.join(' and ')} from Debian's packages ...`);
		const [command, prefix] = process.getuid?.() === 0 ? ['apt-get', []] : ['sudo', ['-n', 'apt-get']];
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];
		await runOrThrow(command, [...prefix, 'update', ...lockWait], { env, timeoutMs: 15 * 60_000 });
		await runOrThrow(command, [...prefix, 'install', '-y', ...lockWait, '--no-install-recommends', ...names], { env, timeoutMs: 15 * 60_000 });
		if (missing.some((wanted) => !wanted.installed())) throw new Error(`${names.join(', ')} did not install`);
	}
	if (postgres === 'registry') await ensureRegistryPostgres();
}

/** Starts a Redis that keeps nothing on disk, appending it to `started`. */
export async function startRedis(folder: string, started: BackgroundProcess[]): Promise<{ port: number; server: BackgroundProcess }> {
	const port = await freePort();
	const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', folder];
	const server = startBackground('redis-server', args, {});
	started.push(server);
	await waitUntilReady(
		'Redis',
		server,
		async () => (await run('redis-cli', ['-h', '127.0.0.1', '-p', String(port), 'ping'], { timeoutMs: 5_000 })).stdout.trim() === 'PONG',
		30_000,
	);
	return { port, server };
}

/**
 * Deletes what shop workflows keep in Redis until decided (`order-pending:*`, all decided by then):
 * before a scenario whose redelivery takes over the database, so that it meets only its own shop
 * workflow's records, as a user's one shop workflow per database does.
 */
export async function forgetPendingOrders(port: number, database: number): Promise<void> {
	const cli = ['-h', '127.0.0.1', '-p', String(port), '-n', String(database)];
	const keys = (await runOrThrow('redis-cli', [...cli, '--scan', '--pattern', 'order-pending:*'], { timeoutMs: 10_000 })).stdout.split('\n').filter(Boolean);
	if (keys.length > 0) await runOrThrow('redis-cli', [...cli, 'DEL', ...keys], { timeoutMs: 10_000 });
}
