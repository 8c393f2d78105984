/**
 * The jest suite against the newest n8n-workflow and n8n-core on the registry, which need
 * Node.js 24. Installs Node.js 24 as every script does (toolInstall.ts) and the newest two
 * packages into .latest/ (ignored by git, reused until a newer release appears), then runs jest
 * under Node.js 24 with both names resolved to those copies. The code still compiles against the
 * pinned dev copies in package.json: the package is built against one release and runs in many.
 *
 * Usage: npm run test:latest [-- jest arguments]
 */
import { join } from 'node:path';

import { installExitHooks, run, runOrThrow } from './processes';
import { ensureInstalled, nodeBinOf, nodeReleaseEnvironment, projectRoot, toolsDir } from './toolInstall';

const NODE_LINE = '24';
const latestDir = join(toolsDir, '.latest');
const packagesDir = join(latestDir, 'n8n');
const nodeBin = nodeBinOf(NODE_LINE);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/**
 * What the tests import that n8n-core shares with them (its container, and the logger in it): the
 * copies next to the newest n8n-core, so that a test's spy is on the logger its executions use.
 */
const SHARED_WITH_CORE = ['@n8n/di', '@n8n/backend-common'];
/** The name of the install folder's package.json, kept so that installs already cached stay valid. */
const LATEST = 'latest-dependencies';

async function newestVersion(name: string): Promise<string> {
	const { stdout } = await runOrThrow(npm, ['view', name, 'version'], { timeoutMs: 60_000 });
	return stdout.trim();
}

async function main(): Promise<number> {
	// Under Node.js 24, native dependencies (isolated-vm) pick their prebuilt binaries for it.
	const env = await nodeReleaseEnvironment(NODE_LINE);
	const versions = { 'n8n-core': await newestVersion('n8n-core'), 'n8n-workflow': await newestVersion('n8n-workflow') };
	await ensureInstalled(packagesDir, LATEST, versions, env);

	const { stdout: nodeVersion } = await runOrThrow(nodeBin, ['--version'], { timeoutMs: 30_000 });
	console.log(`jest under Node.js ${nodeVersion.trim()} with n8n-core ${versions['n8n-core']} and n8n-workflow ${versions['n8n-workflow']}`);
	const projectConfig = (await import(join(projectRoot, 'jest.config.js'))) as { default: Record<string, unknown> };
	const config = {
		...projectConfig.default,
		rootDir: projectRoot,
		moduleNameMapper: Object.fromEntries(
			[...Object.keys(versions), ...SHARED_WITH_CORE].map((name) => [`^${name}$`, join(packagesDir, 'node_modules', name)]),
		),
	};
	const jest = join(projectRoot, 'node_modules', 'jest', 'bin', 'jest.js');
	const result = await run(nodeBin, [jest, '--config', JSON.stringify(config), ...process.argv.slice(2)], {
		cwd: projectRoot,
		env,
		timeoutMs: 30 * 60_000,
		echo: true,
	});
	return result.code ?? 1;
}

installExitHooks();
main().then(
	(code) => process.exit(code),
	(error) => {
		console.error(error instanceof Error ? error.stack : error);
		process.exit(1);
	},
);
