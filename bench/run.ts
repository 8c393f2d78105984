import './env';

import { fork } from 'node:child_process';
import { join } from 'node:path';

import { ensureN8nInstalled } from '../scripts/n8n';
import { commonFlowTable } from './commonFlowTable';
import { rushTable } from './rushTable';
import type { Measurements } from './scenario';
import type { RunMeasurements, Table } from './tables';
import { tables } from './tables';

/**
 * Each run's name, the scenario it runs, that scenario's settings, and the settings `--quick`
 * makes smaller. The transaction runs take seconds as they are, so `--quick` leaves them.
 */
const RUNS: Array<{ name: string; scenario: string; settings: string[]; quick?: Record<string, string> }> = [
	{ name: 'transactions', scenario: 'transactions', settings: [] },
	{ name: 'transactionsPerItem', scenario: 'transactionsPerItem', settings: [] },
	{
		name: 'deduplication',
		scenario: 'deduplication',
		settings: ['--executions', '200', '--perRound', '25', '--batchOrders', '10000', '--batchRounds', '4', '--history', '10000'],
		// The batch keeps its size: 10,000 orders go in two requests, whose claims are what broke the bench unseen.
		quick: { '--executions': '50', '--batchRounds': '2' },
	},
	{
		name: 'commonFlow',
		scenario: 'commonFlow',
		settings: ['--executions', '2000', '--perRound', '100', '--warmUp', '300', '--history', '10000'],
		quick: { '--executions': '200', '--perRound': '50', '--warmUp': '50', '--history': '1000' },
	},
	{
		name: 'rush',
		scenario: 'rush',
		settings: ['--orders', '2000', '--latencyMs', '50', '--rounds', '2', '--history', '10000'],
		quick: { '--orders': '200', '--rounds': '1', '--history': '1000' },
	},
	{ name: 'reports', scenario: 'reports', settings: ['--blocks', '100000'], quick: { '--blocks': '10000' } },
	{ name: 'pagedReadConcurrent', scenario: 'pagedRead', settings: ['--blocks', '100000', '--concurrency', '4'], quick: { '--blocks': '10000' } },
	{ name: 'pagedReadSequential', scenario: 'pagedRead', settings: ['--blocks', '100000', '--concurrency', '1'], quick: { '--blocks': '10000' } },
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

/** The runs that have a table of their own, printable without the others. */
const OWN_TABLES: Record<string, (first: RunMeasurements) => Table> = {
	commonFlow: (first) => commonFlowTable(first.commonFlow),
	rush: (first) => rushTable(first.rush),
};

interface Options {
	count: number;
	/** Smaller sizes, so that a check (`.ci/run`) sees every scenario run to its end in a minute or two. */
	quick: boolean;
	/** The runs to make: all, or those `--only` names (each with a table of its own). */
	only?: string[];
	/** Any other `--name value`: replaces that setting of every chosen run that has it. */
	overrides: Map<string, string>;
}

function readOptions(args: string[]): Options {
	const options: Options = { count: 1, quick: args.includes('--quick'), overrides: new Map() };
	const pairs = args.filter((arg) => arg !== '--quick');
	for (let index = 0; index < pairs.length; index += 2) {
		const [flag, value] = [pairs[index], pairs[index + 1]];
		if (!flag.startsWith('--') || value === undefined) throw new Error(`options are --name value pairs, not ${args.join(' ')}`);
		if (flag === '--runs') options.count = Number(value);
		else if (flag === '--only') options.only = value.split(',');
		else options.overrides.set(flag, value);
	}
	if (!Number.isInteger(options.count) || options.count < 1) throw new Error('--runs takes a whole number from 1');
	const unknown = options.only?.filter((name) => OWN_TABLES[name] === undefined) ?? [];
	if (unknown.length > 0) throw new Error(`--only takes ${Object.keys(OWN_TABLES).join(', ')}; not ${unknown.join(', ')}`);
	return options;
}

/** The chosen runs, each with its quick settings if asked and the overridden ones; an override no chosen run has is refused. */
function chosenRuns({ only, quick, overrides }: Options): typeof RUNS {
	const runs = RUNS.filter(({ name }) => only === undefined || only.includes(name)).map((run) => {
		const settings = [...run.settings];
		for (let index = 0; index < settings.length; index += 2) {
			const smaller = quick ? run.quick?.[settings[index]] : undefined;
			settings[index + 1] = overrides.get(settings[index]) ?? smaller ?? settings[index + 1];
		}
		return { ...run, settings };
	});
	for (const flag of overrides.keys()) {
		if (!runs.some(({ settings }) => settings.includes(flag))) throw new Error(`no chosen run has the setting ${flag}`);
	}
	return runs;
}

/**
 * `npm run bench [-- --runs N] [--quick] [--only commonFlow,rush] [--orders 5000 ...]`: the
 * scenarios N times, each run in fresh processes.
 */
async function main(): Promise<void> {
	const options = readOptions(process.argv.slice(2));
	const chosen = chosenRuns(options);
	if (options.quick) console.error('--quick: smaller sizes, to check that every scenario runs to its end; the figures are not the full bench\'s');
	// The common flow and the rush run n8n's own HTTP Request node from the n8n the end-to-end tests install.
	await ensureN8nInstalled((line) => console.error(line));
	const runs: RunMeasurements[] = [];
	for (let run = 1; run <= options.count; run++) {
		const measurements: RunMeasurements = {};
		for (const { name, scenario, settings } of chosen) {
			console.error(`run ${run} of ${options.count}: ${name}`);
			measurements[name] = await runScenario(scenario, settings);
		}
		runs.push(measurements);
	}
	const printed = options.only === undefined ? [...tables(runs[0]), rushTable(runs[0].rush)] : options.only.map((name) => OWN_TABLES[name](runs[0]));
	for (const table of printed) print(table, runs);
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
