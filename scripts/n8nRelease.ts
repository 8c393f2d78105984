/**
 * Which n8n release the scripts install and run, and how: each release's install recipe, the
 * choice of one (`--n8n=VERSION`), its install into the test-tools folder, and the Node.js it
 * runs on.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';

import { startInstallProgress } from './installProgress';
import { installExitHooks, run, runOrThrow, stopAllChildren } from './processes';
import { ensureNodeRelease, nodeBinOf, nodeGypOf, nodeHeadersOf, nodeReleaseEnvironment, projectRoot, toolsDir } from './toolInstall';

/** The n8n release the tests run by default (`--n8n=VERSION` chooses another). */
const N8N_VERSION = '2.8.4';

/**
 * The newest n8n 1.x on the registry that installs with Node.js 20: the later 1.123.x releases
 * depend on isolated-vm 6, which builds for Node.js 22 and later only.
 */
const N8N_1_VERSION = '1.123.50';

/**
 * The newest n8n on the registry whose whole dependency tree is there too (2.41.3 asks for
 * `@n8n/agents@0.26.2` and others that are not); it needs Node.js 24. `npm start` runs it by
 * default: the n8n users run today.
 */
export const N8N_NEWEST_VERSION = '2.41.1';

/** Ignored by git: n8n with its 1.7 GB of dependencies, installed once and reused. */
const installDir = join(toolsDir, '.n8n-e2e');

/** Ignored by git too: any other release lives beside the default one, in .n8n-e2e-<version>/. */
function installDirOf(version: string): string {
	return version === N8N_VERSION ? installDir : `${installDir}-${version}`;
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

interface InstallRecipe {
	/** What the install folder asks for besides n8n. */
	dependencies: Record<string, string>;
	/** n8n is not installed from its own lockfile, so newer releases of its dependencies come in; these pin the ones that break it. */
	overrides: Record<string, string>;
	/**
	 * For a release that needs another Node.js line than the one running the scripts: the line
	 * (NODE_RELEASES in toolInstall.ts); n8n is installed with its npm and runs on it. It is
	 * installed without its dependencies' install scripts, some of which download binaries from
	 * outside the registry (kafka-javascript its librdkafka, sqlite3 a prebuilt one): the native
	 * modules in `nativeBuilds` ship no binary for the line and are built with node-gyp against
	 * its headers; the others ship one, or are optional (ssh2's crypto, cpu-features).
	 */
	node?: { line: string; nativeBuilds: string[] };
}

const INSTALL_RECIPES: Record<string, InstallRecipe> = {
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
	[N8N_NEWEST_VERSION]: { dependencies: {}, overrides: {}, node: { line: '24', nativeBuilds: ['sqlite3'] } },
};

let selectedVersion = N8N_VERSION;

/** Chooses the n8n release every later call installs and runs (N8N_VERSION unless chosen). */
function useN8nVersion(version: string): void {
	if (INSTALL_RECIPES[version] === undefined) {
		throw new Error(`No install recipe for n8n ${version}; known: ${Object.keys(INSTALL_RECIPES).join(', ')}`);
	}
	selectedVersion = version;
}

export function selectedN8nVersion(): string {
	return selectedVersion;
}

/** The chosen release's install folder, which also holds the sandbox's n8n user folder. */
export function selectedInstallDir(): string {
	return installDirOf(selectedVersion);
}

function installManifest(version: string) {
	const { dependencies, overrides } = INSTALL_RECIPES[version];
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

function hasBuiltAddon(packageDir: string): boolean {
	const release = join(packageDir, 'build', 'Release');
	return existsSync(release) && readdirSync(release).some((file) => file.endsWith('.node'));
}

async function isInstalled(version: string): Promise<boolean> {
	const dir = installDirOf(version);
	const manifest = await readJson(join(dir, 'package.json'));
	const installed = (await readJson(join(dir, 'node_modules', 'n8n', 'package.json'))) as { version?: string } | undefined;
	const built = (INSTALL_RECIPES[version].node?.nativeBuilds ?? []).every((name) => hasBuiltAddon(join(dir, 'node_modules', name)));
	return JSON.stringify(manifest) === JSON.stringify(installManifest(version)) && installed?.version === version && existsSync(n8nBin()) && built;
}

async function buildNativeModules(dir: string, node: NonNullable<InstallRecipe['node']>, log: (line: string) => void): Promise<void> {
	// Also when this process ran on that line from the start: its node-gyp and headers come with the release.
	await ensureNodeRelease(node.line);
	for (const name of node.nativeBuilds) {
		log(`  building ${name} for Node.js ${process.versions.node} ...`);
		const args = [nodeGypOf(node.line), 'rebuild', '--release', '--jobs=max', `--nodedir=${nodeHeadersOf(node.line)}`];
		await runOrThrow(process.execPath, args, { cwd: join(dir, 'node_modules', name), timeoutMs: 20 * 60_000 });
	}
}

const runsOnLine = (line: string | undefined) => line === undefined || process.versions.node.split('.')[0] === line;

/** Installs the chosen n8n into its folder unless it is there already as asked for (minutes the first time). */
export async function ensureN8nInstalled(log: (line: string) => void): Promise<void> {
	const version = selectedVersion;
	const { node } = INSTALL_RECIPES[version];
	if (!runsOnLine(node?.line)) throw new Error(`n8n ${version} runs on Node.js ${node?.line}: start the script through onN8nNode()`);
	const dir = installDirOf(version);
	if (await isInstalled(version)) return;
	log(`Installing n8n ${version} into ${toolsDir === projectRoot ? relative(projectRoot, dir) : dir}/; this takes a few minutes once ...`);
	await mkdir(dir, { recursive: true });
	await writeFile(join(dir, 'package.json'), JSON.stringify(installManifest(version), null, 2));
	const progress = startInstallProgress(`n8n ${version}`);
	let outcome = 'failed';
	try {
		const scripts = node === undefined ? [] : ['--ignore-scripts'];
		await runOrThrow(npm, ['install', '--yes', '--legacy-peer-deps', '--no-audit', '--no-fund', '--loglevel=http', ...scripts], {
			cwd: dir,
			timeoutMs: 20 * 60_000,
			onOutput: progress.read,
		});
		outcome = 'installed';
	} finally {
		progress.finish(outcome);
	}
	if (node !== undefined) await buildNativeModules(dir, node, log);
	if (!(await isInstalled(version))) throw new Error(`n8n ${version} did not install into ${dir}`);
}

/**
 * When the chosen release needs another Node.js line than this process runs on, runs this
 * script again on that line (installed once; n8n's native modules load only there) and returns
 * its exit code; undefined when this process is on the right line already. Ctrl-C reaches it.
 */
async function runOnN8nNode(): Promise<number | undefined> {
	const line = INSTALL_RECIPES[selectedVersion].node?.line;
	if (line === undefined || runsOnLine(line)) return undefined;
	const env = await nodeReleaseEnvironment(line);
	const child = run(nodeBinOf(line), process.argv.slice(1), { env, timeoutMs: 24 * 3600_000, echo: true }).then((result) => result.code);
	installExitHooks(async () => {
		stopAllChildren('SIGTERM');
		await child;
	});
	return (await child) ?? 1;
}

/**
 * Chooses the release named by `--n8n=VERSION` in `args` (`byDefault` without it), then calls
 * `here` when this process runs on the Node.js line it needs; else runs the script again on that
 * line and exits as that run does.
 */
export function onN8nNode(args: readonly string[], here: () => void, byDefault = N8N_VERSION): void {
	useN8nVersion(args.find((arg) => arg.startsWith('--n8n='))?.slice('--n8n='.length) ?? byDefault);
	runOnN8nNode().then(
		(code) => (code === undefined ? here() : process.exit(code)),
		(error) => {
			console.error(error instanceof Error ? error.stack : error);
			process.exit(1);
		},
	);
}
