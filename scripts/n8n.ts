import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { startInstallProgress } from './installProgress';
import { run, runOrThrow, startBackground } from './processes';

/** The n8n release the package is proven against. */
export const N8N_VERSION = '2.8.4';

/** Compiled to .build-test/scripts/, two levels below the project. */
export const projectRoot = resolve(__dirname, '..', '..');

/** Ignored by git: n8n with its 1.7 GB of dependencies, installed once and reused. */
export const installDir = join(projectRoot, '.n8n-e2e');

const n8nBin = join(installDir, 'node_modules', 'n8n', 'bin', 'n8n');

/** A fixed key, so credentials imported by one command can be read by the next. Test value only. */
const ENCRYPTION_KEY = 'n8n-nodes-mailing-platform-local-test-key';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * What .n8n-e2e/package.json asks for. n8n is not installed from its own lockfile, so newer
 * releases of its dependencies can come in; the overrides pin the ones that break n8n 2.8.4.
 */
const INSTALL_MANIFEST = {
	name: 'n8n-local-install',
	private: true,
	description: 'n8n for npm start and npm run test:e2e; generated, not committed.',
	dependencies: { n8n: N8N_VERSION, '@opentelemetry/api': '1.9.0', '@opentelemetry/core': '^2.12.1' },
	overrides: {
		// The xlsx release n8n asks for is not on the registry; this one is.
		xlsx: '0.18.5',
		// Later releases need a newer @langchain/core than n8n's, and n8n start fails to load.
		'@langchain/langgraph-checkpoint': '1.0.0',
	},
};

async function readJson(path: string): Promise<unknown> {
	try {
		return JSON.parse(await readFile(path, 'utf8'));
	} catch {
		return undefined;
	}
}

async function isInstalled(): Promise<boolean> {
	const manifest = await readJson(join(installDir, 'package.json'));
	const installed = (await readJson(join(installDir, 'node_modules', 'n8n', 'package.json'))) as { version?: string } | undefined;
	return JSON.stringify(manifest) === JSON.stringify(INSTALL_MANIFEST) && installed?.version === N8N_VERSION && existsSync(n8nBin);
}

/** Installs n8n into .n8n-e2e/ unless it is there already as asked for (minutes the first time). */
export async function ensureN8nInstalled(log: (line: string) => void): Promise<void> {
	if (await isInstalled()) return;
	log(`Installing n8n ${N8N_VERSION} into .n8n-e2e/; this takes a few minutes once ...`);
	await mkdir(installDir, { recursive: true });
	await writeFile(join(installDir, 'package.json'), JSON.stringify(INSTALL_MANIFEST, null, 2));
	const progress = startInstallProgress(`n8n ${N8N_VERSION}`);
	try {
		await runOrThrow(npm, ['install', '--yes', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=http'], {
			cwd: installDir,
			timeoutMs: 20 * 60_000,
			onOutput: progress.read,
		});
	} finally {
		progress.finish(await isInstalled() ? 'installed' : 'failed');
	}
	if (!(await isInstalled())) throw new Error(`n8n ${N8N_VERSION} did not install into ${installDir}`);
}

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
	const { devDependencies, peerDependencies, optionalDependencies, ...kept } = JSON.parse(await readFile(packageJsonPath, 'utf8'));
	await writeFile(packageJsonPath, JSON.stringify(kept, null, 2));
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
async function freePort(): Promise<number> {
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
	return await runOrThrow(process.execPath, [n8nBin, ...args], { cwd: projectRoot, env, timeoutMs });
}

/** Runs an imported workflow with `n8n execute`; the result is printed as JSON on stdout. */
export async function executeWorkflow(id: string, env: NodeJS.ProcessEnv, timeoutMs: number) {
	return await run(process.execPath, [n8nBin, 'execute', `--id=${id}`, '--rawOutput'], { cwd: projectRoot, env, timeoutMs });
}

export function startN8nServer(env: NodeJS.ProcessEnv) {
	return startBackground(process.execPath, [n8nBin, 'start'], { cwd: projectRoot, env });
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
	data: Record<string, string>;
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
