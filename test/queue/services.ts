/**
 * The two services n8n's queue mode needs, private to one run: a Postgres cluster and a Redis,
 * both from Debian's packages, listening on free loopback ports, with their files in the run's
 * temporary folder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { freePort } from '../../scripts/n8n';
import { type BackgroundProcess, run, runOrThrow, startBackground, waitUntilReady } from '../../scripts/processes';

/** Superuser of the private cluster; it trusts loopback connections, so there is no password. */
export const DATABASE_USER = 'n8n';
export const DATABASE_NAME = 'postgres';

const POSTGRES_ROOT = '/usr/lib/postgresql';

/** The bin folder of the newest Postgres Debian installed, if any. */
function postgresBin(): string | undefined {
	if (!existsSync(POSTGRES_ROOT)) return undefined;
	const versions = readdirSync(POSTGRES_ROOT)
		.filter((version) => existsSync(join(POSTGRES_ROOT, version, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length === 0 ? undefined : join(POSTGRES_ROOT, versions[0], 'bin');
}

function onPath(command: string): boolean {
	try {
		execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

const isRoot = () => process.getuid?.() === 0;

/** Installs Debian's postgresql and redis-server when they are missing (as root, or through sudo). */
export async function ensureServicesInstalled(log: (line: string) => void): Promise<void> {
	const missing = [postgresBin() === undefined ? 'postgresql' : '', onPath('redis-server') ? '' : 'redis-server'].filter(Boolean);
	if (missing.length === 0) return;
	log(`Installing ${missing.join(' and ')} from Debian's packages ...`);
	const [command, prefix] = isRoot() ? ['apt-get', []] : ['sudo', ['-n', 'apt-get']];
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];
	await runOrThrow(command, [...prefix, 'update', ...lockWait], { env, timeoutMs: 15 * 60_000 });
	await runOrThrow(command, [...prefix, 'install', '-y', ...lockWait, '--no-install-recommends', ...missing], { env, timeoutMs: 15 * 60_000 });
	if (postgresBin() === undefined || !onPath('redis-server')) throw new Error(`${missing.join(', ')} did not install`);
}

/** Postgres refuses to run as root: as root, its commands run as Debian's `postgres` user. */
function asDatabaseUser(command: string, args: string[]): [string, string[]] {
	if (!isRoot()) return [command, args];
	return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', '--', command, ...args]];
}

/** Starts a fresh cluster in `<folder>/postgres` (`folder`: the run's own temporary folder), appending it to `started`. */
export async function startPostgres(folder: string, started: BackgroundProcess[]): Promise<{ port: number; server: BackgroundProcess }> {
	const bin = postgresBin();
	if (bin === undefined) throw new Error('Postgres is not installed');
	const dataDir = join(folder, 'postgres');
	await mkdir(dataDir);
	if (isRoot()) {
		const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
		await chmod(folder, 0o711);
		await chown(dataDir, id('-u'), id('-g'));
	}
	const initdb = asDatabaseUser(join(bin, 'initdb'), ['-D', dataDir, '-U', DATABASE_USER, '--auth=trust', '-E', 'UTF8', '--no-sync']);
	await runOrThrow(...initdb, { timeoutMs: 120_000 });

	const port = await freePort();
	// Durability is not under test: a cluster that lives for one run skips the disk flushes.
	const settings = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
	const postgres = asDatabaseUser(join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])]);
	const server = startBackground(...postgres, {});
	started.push(server);
	const isReady = join(bin, 'pg_isready');
	await waitUntilReady(
		'Postgres',
		server,
		async () => (await run(isReady, ['-h', '127.0.0.1', '-p', String(port), '-U', DATABASE_USER], { timeoutMs: 5_000 })).code === 0,
		60_000,
	);
	return { port, server };
}

/** Runs one SQL query in the private cluster and returns its rows, columns separated by "|". */
export async function sql(port: number, query: string): Promise<string[][]> {
	const { stdout } = await runOrThrow(
		'psql',
		['-h', '127.0.0.1', '-p', String(port), '-U', DATABASE_USER, '-d', DATABASE_NAME, '-X', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-c', query],
		{ timeoutMs: 60_000 },
	);
	return stdout
		.split('\n')
		.filter((line) => line !== '')
		.map((line) => line.split('|'));
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
