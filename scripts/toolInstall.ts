import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { runOrThrow } from './processes';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const INSTALL_LIMIT_MS = 15 * 60_000;

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
