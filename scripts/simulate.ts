/**
 * The simulation of the account's sending (test/simulation) at any size, or one case replayed.
 *
 * Usage: npm run test:simulate -- [--runs N] [--seed S] [--path P] [--skip check,check] [--trace] [--census]
 * --runs: cases to draw (default 10,000), shared out among jest processes of at most 5,000
 * cases each, one per processor at a time, each with a seed of its own (S, S + 1, …; each prints
 * its seed on a failure); --seed and --path: the
 * ones a failure printed, to replay it; --skip: checks to leave out (their names lead each
 * problem), to search past a known one; --trace: print every call of n8n's store (with --path, a
 * replayed case's); --census: run every case whatever it shows, and print per check the cases that
 * showed it and the first.
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const options = new Map<string, string>();
const args = process.argv.slice(2);
for (let index = 0; index < args.length; index++) {
	const [name, inline] = args[index].replace(/^--/, '').split('=', 2);
	options.set(name, name === 'trace' || name === 'census' ? '1' : (inline ?? args[++index]));
}
const runs = Number(options.get('runs') ?? 10_000);
const seed = Number(options.get('seed') ?? Date.now() % 1_000_000);
const processors = availableParallelism();
/**
 * The cases a jest process draws at most: what the node's module state keeps of each case's
 * accounts adds up over a run (a case names its own), and after some 8,000 cases it made steps
 * of the held-thread check slower than a fresh process runs them.
 */
const LARGEST_SHARD = 5_000;
const shards = options.has('path') ? 1 : Math.max(1, Math.min(processors, Math.ceil(runs / 1000)), Math.ceil(runs / LARGEST_SHARD));

function shard(index: number): Promise<number> {
	const env: NodeJS.ProcessEnv = {
		...process.env,
		SIMULATION_RUNS: String(Math.ceil(runs / shards)),
		SIMULATION_SEED: String(seed + index),
		SIMULATION_TIME_LIMIT_MS: String(24 * 3600_000),
	};
	if (options.has('path')) env.SIMULATION_PATH = options.get('path');
	if (options.has('skip')) env.SIMULATION_SKIP = options.get('skip');
	if (options.has('trace')) env.SIMULATION_TRACE = '1';
	if (options.has('census')) env.SIMULATION_CENSUS = '1';
	const jest = spawn(process.execPath, [require.resolve('jest/bin/jest'), 'test/simulation/sending.test.ts'], { env, stdio: 'inherit' });
	return new Promise((resolve) => jest.on('exit', (code) => resolve(code ?? 1)));
}

/** Runs the shards, as many at once as there are processors. */
async function runAll(): Promise<number[]> {
	const codes: number[] = [];
	let next = 0;
	const worker = async () => {
		for (let index = next++; index < shards; index = next++) codes[index] = await shard(index);
	};
	await Promise.all(Array.from({ length: Math.min(processors, shards) }, worker));
	return codes;
}

console.log(`Simulating ${runs} cases in ${shards} process${shards === 1 ? '' : 'es'}, ${Math.min(processors, shards)} at a time, seed ${seed}${shards === 1 ? '' : ` to ${seed + shards - 1}`}`);
void runAll().then((codes) => process.exit(codes.some((code) => code !== 0) ? 1 : 0));
