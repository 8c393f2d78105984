/**
 * The simulation of the account's sending (test/simulation) at any size, or one case replayed.
 *
 * Usage: npm run test:simulate -- [--runs N] [--seed S] [--path P] [--skip check,check]
 * --runs: cases to draw (default 10,000); --seed and --path: the ones a failure printed, to
 * replay it; --skip: checks to leave out (their names lead each problem), to search past a known one.
 */
import { spawnSync } from 'node:child_process';

const options = new Map<string, string>();
const args = process.argv.slice(2);
for (let index = 0; index < args.length; index++) {
	const [name, inline] = args[index].replace(/^--/, '').split('=', 2);
	options.set(name, inline ?? args[++index]);
}
const env: NodeJS.ProcessEnv = { ...process.env, SIMULATION_RUNS: options.get('runs') ?? '10000', SIMULATION_TIME_LIMIT_MS: String(24 * 3600_000) };
if (options.has('seed')) env.SIMULATION_SEED = options.get('seed');
if (options.has('path')) env.SIMULATION_PATH = options.get('path');
if (options.has('skip')) env.SIMULATION_SKIP = options.get('skip');
const jest = spawnSync(process.execPath, [require.resolve('jest/bin/jest'), 'test/simulation'], { env, stdio: 'inherit' });
process.exit(jest.status ?? 1);
