import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { n8nBin } from './n8nRelease';
import { run, runOrThrow, startBackground } from './processes';
import { projectRoot } from './toolInstall';

export { projectRoot, toolsDir } from './toolInstall';
export {
	ensureN8nInstalled,
	N8N_NEWEST_VERSION,
	n8nBin,
	onN8nNode,
	selectedInstallDir,
	selectedN8nVersion,
} from './n8nRelease';

/** A fixed key, so credentials imported by one command can be read by the next. Test value only. */
const ENCRYPTION_KEY = 'n8n-nodes-mailing-platform-local-test-key';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Packs the project as it would be published and returns the tarball's path. */
export async function packProject(destination: string): Promise<string> {
	await mkdir(destination, { recursive: true });
	const { stdout } = await runOrThrow(npm, ['pack', '--pack-destination', destination, '--json'], {
		cwd: projectRoot,
		timeoutMs: 120_000,
	});
	const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string }>;
	return join(destination, packed.filename);
}

/**
 * Installs the tarball as n8n 2.x installs a community package: unpacked into
 * `<user folder>/.n8n/nodes/node_modules/<name>`, dev/peer/optional dependencies dropped from
 * its package.json (n8n provides n8n-workflow), production dependencies installed with n8n's
 * npm flags, and the package listed in the folder's package.json.
 */
export async function installCommunityPackage(userFolder: string, tarball: string): Promise<void> {
	const nodesDir = join(userFolder, '.n8n', 'nodes');
	const manifest = JSON.parse(await readFile(join(projectRoot, 'package.json'), 'utf8')) as { name: string; version: string };
	const packageDir = join(nodesDir, 'node_modules', manifest.name);
	await rm(packageDir, { recursive: true, force: true });
	await mkdir(packageDir, { recursive: true });
	await runOrThrow('tar', ['-xzf', tarball, '-C', packageDir, '--strip-components=1'], { timeoutMs: 60_000 });

	const packageJsonPath = join(packageDir, 'package.json');
	const installed = JSON.parse(await readFile(packageJsonPath, 'utf8')) as Record<string, unknown>;
	for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies']) delete installed[field];
	await writeFile(packageJsonPath, JSON.stringify(installed, null, 2));
	await runOrThrow(
		npm,
		['install', '--audit=false', '--fund=false', '--bin-links=false', '--install-strategy=shallow', '--ignore-scripts=true', '--package-lock=false', '--prefer-offline'],
		{ cwd: packageDir, timeoutMs: 300_000 },
	);

	const folderManifestPath = join(nodesDir, 'package.json');
	const folderManifest: { dependencies?: Record<string, string>; [key: string]: unknown } = existsSync(folderManifestPath)
		? JSON.parse(await readFile(folderManifestPath, 'utf8'))
		: { name: 'installed-nodes', private: true };
	folderManifest.dependencies = { ...folderManifest.dependencies, [manifest.name]: manifest.version };
	await writeFile(folderManifestPath, JSON.stringify(folderManifest, null, 2));
}

/** A port nothing listens on right now, picked by the OS. */
export async function freePort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	await new Promise((resolve) => server.close(resolve));
	return port;
}

export async function makeUserFolder(prefix: string): Promise<string> {
	return await mkdtemp(join(tmpdir(), prefix));
}

export async function removeFolder(folder: string): Promise<void> {
	await rm(folder, { recursive: true, force: true });
}

/**
 * Environment for every n8n process: its own user folder, SQLite, and everything that would
 * call out to the internet switched off (there may be no network at all).
 */
export async function n8nEnvironment(userFolder: string, extra: Record<string, string> = {}): Promise<NodeJS.ProcessEnv> {
	const inherited = Object.fromEntries(
		Object.entries(process.env).filter(([key]) => !key.startsWith('N8N_') && !key.startsWith('DB_')),
	);
	return {
		...inherited,
		N8N_USER_FOLDER: userFolder,
		N8N_ENCRYPTION_KEY: ENCRYPTION_KEY,
		DB_TYPE: 'sqlite',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		EXTERNAL_FRONTEND_HOOKS_URLS: '',
		// Not lower: `n8n execute` prints its result through the logger at level info.
		N8N_LOG_LEVEL: 'info',
		// The task-runner broker would take the fixed port 5679, colliding with any other n8n.
		N8N_RUNNERS_BROKER_PORT: String(await freePort()),
		...extra,
	};
}

/** Runs one n8n CLI command to its end. */
export async function n8nCommand(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 180_000) {
	return await runOrThrow(process.execPath, [n8nBin(), ...args], { cwd: projectRoot, env, timeoutMs });
}

/** Runs an imported workflow with `n8n execute`; the result is printed as JSON on stdout (through `stdoutFile`). */
export async function executeWorkflow(id: string, env: NodeJS.ProcessEnv, timeoutMs: number, stdoutFile: string) {
	return await run(process.execPath, [n8nBin(), 'execute', `--id=${id}`, '--rawOutput'], { cwd: projectRoot, env, timeoutMs, stdoutFile });
}

export function startN8nServer(env: NodeJS.ProcessEnv) {
	return startBackground(process.execPath, [n8nBin(), 'start'], { cwd: projectRoot, env });
}

/** Imports every workflow file in `folder` (each must carry an `id`). */
export async function importWorkflows(folder: string, env: NodeJS.ProcessEnv): Promise<void> {
	if ((await readdir(folder)).length === 0) return;
	await n8nCommand(['import:workflow', '--separate', `--input=${folder}`], env);
}

export interface CredentialToImport {
	id: string;
	name: string;
	type: string;
	data: Record<string, string | number | boolean>;
}

/** Imports credentials given in plain text; n8n encrypts them with the environment's key. */
export async function importCredentials(credentials: CredentialToImport[], env: NodeJS.ProcessEnv, scratch: string) {
	const file = join(scratch, 'credentials.json');
	await writeFile(file, JSON.stringify(credentials));
	try {
		await n8nCommand(['import:credentials', `--input=${file}`], env);
	} finally {
		await rm(file, { force: true });
	}
}
