import './env';

import { fork } from 'node:child_process';
import { join } from 'node:path';

import { ensureN8nInstalled } from '../scripts/n8n';
import type { Measurements } from './scenario';
import type { RunMeasurements, Table } from './tables';
import { tables } from './tables';

/** Each run's name, the scenario it runs and that scenario's settings. */
const RUNS: Array<{ name: string; scenario: string; settings: string[] }> = [
	{ name: 'transactions', scenario: 'transactions', settings: [] },
	{ name: 'transactionsPerItem', scenario: 'transactionsPerItem', settings: [] },
	{ name: 'deduplication', scenario: 'deduplication', settings: [] },
	{ name: 'commonFlow', scenario: 'commonFlow', settings: ['--executions', '2000', '--perRound', '100', '--warmUp', '300', '--history', '10000'] },
	{ name: 'reports', scenario: 'reports', settings: [] },
	{ name: 'pagedReadConcurrent', scenario: 'pagedRead', settings: ['--concurrency', '4'] },
	{ name: 'pagedReadSequential', scenario: 'pagedRead', settings: ['--concurrency', '1'] },
];

/** One scenario in a fresh process that runs only it, so no figure inherits another's heap or code. */
async function runScenario(scenario: string, settings: string[]): Promise<Measurements> {
	const child = fork(join(__dirname, 'scenario.js'), [scenario, ...settings], { execArgv: ['--expose-gc'], stdio: 'inherit' });
	let measurements: Measurements | undefined;
	child.on('message', (message) => (measurements = message as Measurements));
	const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
	if (code !== 0 || measurements === undefined) throw new Error(`the scenario ${scenario} failed (exit code ${code})`);
	return measurements;
}

/** One value, or min / median / max over the runs when they differ. */
function spread(values: number[], format: (value: number) => string): string {
	const sorted = [...values].sort((a, b) => a - b);
	const [min, max] = [sorted[0], sorted[sorted.length - 1]];
	if (format(min) === format(max)) return format(min);
	return `${format(min)} / ${format(sorted[Math.floor(sorted.length / 2)])} / ${format(max)}`;
}

function print(table: Table, runs: RunMeasurements[]): void {
	const lines = table.rows.map((row) => [row.measure, spread(runs.map(row.value), row.format), row.goal ?? '']);
	const header = runs.length === 1 ? 'value' : `min / median / max of ${runs.length} runs`;
	const widths = [0, 1].map((column) => Math.max(...lines.map((line) => line[column].length), [7, header.length][column]));
	console.log(`\n**${table.title}**\n`);
	console.log(`| ${'measure'.padEnd(widths[0])} | ${header.padEnd(widths[1])} | goal |`);
	console.log(`|${'-'.repeat(widths[0] + 2)}|${'-'.repeat(widths[1] + 2)}|---|`);
	for (const [measure, value, goal] of lines) console.log(`| ${measure.padEnd(widths[0])} | ${value.padEnd(widths[1])} | ${goal} |`);
}

/** `npm run bench [-- --runs N]`: every scenario N times, each run in fresh processes. */
async function main(): Promise<void> {
	const runsFlag = process.argv.indexOf('--runs');
	const count = runsFlag === -1 ? 1 : Number(process.argv[runsFlag + 1]);
	if (!Number.isInteger(count) || count < 1) throw new Error('--runs takes a whole number from 1');
	// The common flow runs n8n's own HTTP Request node from the n8n the end-to-end tests install.
	await ensureN8nInstalled((line) => console.error(line));
	const runs: RunMeasurements[] = [];
	for (let run = 1; run <= count; run++) {
		const measurements: RunMeasurements = {};
		for (const { name, scenario, settings } of RUNS) {
			console.error(`run ${run} of ${count}: ${name}`);
			measurements[name] = await runScenario(scenario, settings);
		}
		runs.push(measurements);
	}
	for (const table of tables(runs[0])) print(table, runs);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
