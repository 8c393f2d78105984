import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

import { startInstallProgress } from './installProgress';
import { run, runOrThrow, startBackground } from './processes';

/** The n8n release the package is proven against, and the one `npm start` runs. */
export const N8N_VERSION = '2.8.4';

/**
 * The newest n8n 1.x on the registry that installs with Node.js 20: the later 1.123.x releases
 * depend on isolated-vm 6, which builds for Node.js 22 and later only.
 */
export const N8N_1_VERSION = '1.123.50';

/** Compiled to .build-test/scripts/, two levels below the project. */
export const projectRoot = resolve(__dirname, '..', '..');

/**
 * Where the test tools live (n8n releases, Node.js 24, the newest n8n packages): the project
 * folder, or TEST_TOOLS_DIR when set. CI points it at the machine's cache, so that a clean clone
 * reuses what an earlier run installed instead of installing gigabytes again.
 */
export const toolsDir = process.env.TEST_TOOLS_DIR ? resolve(process.env.TEST_TOOLS_DIR) : projectRoot;

/** Ignored by git: n8n with its 1.7 GB of dependencies, installed once and reused. */
export const installDir = join(toolsDir, '.n8n-e2e');

/** Ignored by git too: any other release lives beside the default one, in .n8n-e2e-<version>/. */
function installDirOf(version: string): string {
	return version === N8N_VERSION ? installDir : `${installDir}-${version}`;
}

/** A fixed key, so credentials imported by one command can be read by the next. Test value only. */
const ENCRYPTION_KEY = 'n8n-nodes-mailing-platform-local-test-key';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * What each release's install folder asks for besides n8n. n8n is not installed from its own
 * lockfile, so newer releases of its dependencies can come in; the overrides pin the ones that
 * break it.
 */
const INSTALL_EXTRAS: Record<string, { dependencies: Record<string, string>; overrides: Record<string, string> }> = {
	[N8N_VERSION]: {
		dependencies: { '@opentelemetry/api': '1.9.0', '@opentelemetry/core': '^2.12.1' },
		overrides: {
			// The xlsx release n8n asks for is not on the registry; this one is.
			xlsx: '0.18.5',
			// Later releases need a newer @langchain/core than n8n's, and n8n start fails to load.
			'@langchain/langgraph-checkpoint': '1.0.0',
		},
	},
	[N8N_1_VERSION]: { dependencies: {}, overrides: { xlsx: '0.18.5' } },
};

let selectedVersion = N8N_VERSION;

/** Chooses the n8n release every later call installs and runs (N8N_VERSION unless chosen). */
export function useN8nVersion(version: string): void {
	if (INSTALL_EXTRAS[version] === undefined) {
		throw new Error(`No install recipe for n8n ${version}; known: ${Object.keys(INSTALL_EXTRAS).join(', ')}`);
	}
	selectedVersion = version;
}

function installManifest(version: string) {
	const { dependencies, overrides } = INSTALL_EXTRAS[version];
	return {
		name: 'n8n-local-install',
		private: true,
		description: 'n8n for npm start and npm run test:e2e; generated, not committed.',
		dependencies: { n8n: version, ...dependencies },
		overrides,
	};
}

/** The `n8n` command of the chosen release. */
export function n8nBin(): string {
	return join(installDirOf(selectedVersion), 'node_modules', 'n8n', 'bin', 'n8n');
}

async function readJson(path: string): Promise<unknown> {
	try {
		return JSON.parse(await readFile(path, 'utf8'));
	} catch {
		return undefined;
	}
}

async function isInstalled(version: string): Promise<boolean> {
	const dir = installDirOf(version);
	const manifest = await readJson(join(dir, 'package.json'));
	const installed = (await readJson(join(dir, 'node_modules', 'n8n', 'package.json'))) as { version?: string } | undefined;
	return JSON.stringify(manifest) === JSON.stringify(installManifest(version)) && installed?.version === version && existsSync(n8nBin());
}

/** Installs the chosen n8n into its folder unless it is there already as asked for (minutes the first time). */
export async function ensureN8nInstalled(log: (line: string) => void): Promise<void> {
	const version = selectedVersion;
	const dir = installDirOf(version);
	if (await isInstalled(version)) return;
	log(`Installing n8n ${version} into ${toolsDir === projectRoot ? relative(projectRoot, dir) : dir}/; this takes a few minutes once ...`);
	await mkdir(dir, { recursive: true });
	await writeFile(join(dir, 'package.json'), JSON.stringify(installManifest(version), null, 2));
	const progress = startInstallProgress(`n8n ${version}`);
	try {
		await runOrThrow(npm, ['install', '--yes', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=http'], {
			cwd: dir,
			timeoutMs: 20 * 60_000,
			onOutput: progress.read,
		});
	} finally {
		progress.finish((await isInstalled(version)) ? 'installed' : 'failed');
	}
	if (!(await isInstalled(version))) throw new Error(`n8n ${version} did not install into ${dir}`);
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

/** Runs an imported workflow with `n8n execute`; the result is printed as JSON on stdout. */
export async function executeWorkflow(id: string, env: NodeJS.ProcessEnv, timeoutMs: number) {
	return await run(process.execPath, [n8nBin(), 'execute', `--id=${id}`, '--rawOutput'], { cwd: projectRoot, env, timeoutMs });
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
