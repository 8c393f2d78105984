/**
 * `npm run test:peak`: orders arriving together at a real n8n (2.8.4 unless --n8n names another) in regular mode (SQLite),
 * Webhook (Respond: Immediately) -> Transaction › Create with the order id as Deduplication Key,
 * against the service double. Scenarios (a) to (d) of issue 24 each run on a fresh keyed
 * workflow, then (or first, alternating) on the same workflow without the key, which doubles
 * by design and serves as the check of the counting and the latency baseline. Fails when a
 * keyed run sent an order twice, lost one, or had an execution fail. First, after the warm-up, it
 * measures the common flow (commonFlow.ts): the CPU one order per webhook call costs n8n through
 * Create, with and without the key, against n8n's HTTP Request node, and fails when Create costs
 * more than 1.25 times as much. Last, a shop's rush against the account's request budget and the
 * keyed flow at its steady state (rushPlan.ts), which fails when Create loses or doubles an order,
 * or when Create at the steady state, with no history and with it full, costs more CPU than
 * rushSettings.ts's STEADY_LIMITS allow against what a user builds from n8n's own nodes for the
 * same promise (keyed: Remove Duplicates before the HTTP Request node with a Header Auth
 * credential; without the key: that HTTP Request node).
 *
 * Usage: node .build-test/test/peak/run.js [a b c d] [rush] [steady] [bulk] [crash] [stop] [timeout] [outage] [unreachable] [refusing] [--n8n=VERSION] [--concurrency=N] [--outage-seconds=N] [--fill-orders=N] [--compare] [--keep]
 * (letters pick scenarios, with the common flow; `rush` the rush and the steady state, `steady` the
 * steady state alone, `bulk`, `crash`, `stop`, `timeout`, `outage` (503), `unreachable`, `refusing` (429) those parts; none: everything; --n8n another release
 * scripts/n8nRelease.ts installs; --concurrency n8n's production concurrency limit, as on n8n's
 * cloud plans, with which the keyed rush is judged against the unkeyed one; --outage-seconds
 * how long the outages last; --fill-orders the orders that fill the steady state's keyed
 * histories (10,000, the default History Size, fills them); --compare adds the HTTP Request node
 * with the header written in it to the steady state's rounds, printed, not judged; --keep leaves
 * the n8n folder)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import { waitForEditor } from '../../scripts/editor';
import {
	ensureN8nInstalled,
	freePort,
	importCredentials,
	importWorkflows,
	installCommunityPackage,
	makeUserFolder,
	n8nEnvironment,
	onN8nNode,
	packProject,
	removeFolder,
	selectedN8nVersion,
	startN8nServer,
} from '../../scripts/n8n';
import { type BackgroundProcess, groupsStillRunning, installExitHooks, stopAllChildren } from '../../scripts/processes';
import { sandboxCredential } from '../../scripts/sandbox';
import { ServiceDouble } from '../double/server';
import { type CommonFlowFigures, describeCommonFlow, measureCommonFlow } from './commonFlow';
import { commonFlowWorkflows } from './commonFlowWorkflows';
import { atOnce, shopOrders, untilWebhookServes } from './delivery';
import type { ScenarioFigures } from './judge';
import { credentialData, executionStopper, publishWorkflows } from './publish';
import { installRetryExample } from './retryExample';
import { describeScenarios } from './report';
import { runScenario, type RunnerEnvironment } from './runner';
import { describeRushOutcome, type RushOutcome, rushPlan } from './rushPlan';
import type { OutageCause } from './rushWorkflows';
import { PEAK_SCENARIOS, type Scenario } from './scenarios';
import { describeShapesOutcome, type ShapesOutcome, shapesPlan } from './shapesPlan';
import { executionSpans, keyHistoryEntries, openSqliteExecutions } from './sqliteExecutions';
import { ORDER_TYPE, scenarioWorkflow, type Variant } from './workflows';

const OVERALL_LIMIT_MS = 30 * 60_000;
const START_LIMIT_MS = 240_000;

/** The run's limit: longer outages (`--outage-seconds`) each add their length, so that three of ten minutes fit. */
const overallLimitMs = ({ outages, outageSeconds }: Selection) => OVERALL_LIMIT_MS + outages.length * (outageSeconds ?? 0) * 1000;

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

/** n8n loads node types and compiles code on first use; those first executions are not measured. */
const warmUp: Scenario = {
	letter: 'w',
	title: 'warm-up, not judged',
	orders: 20,
	async drive(run, orders) {
		await run.deliver(atOnce(orders));
		await run.settle();
	},
};

interface Selection {
	scenarios: Scenario[];
	/** n8n's production concurrency limit (`N8N_CONCURRENCY_PRODUCTION_LIMIT`); none: n8n's default, no limit. */
	concurrencyLimit?: number;
	/** How long the outages last, where not the release's settings (`--outage-seconds=600`: the ten minutes of issue 57). */
	outageSeconds?: number;
	/** How many orders fill each keyed flow's history in the steady state, where not the default History Size's (`--fill-orders=5000`: what a row of half the entries costs). */
	fillOrders?: number;
	/** The steady state's rounds also hold the HTTP Request node with the header written in it (`--compare`). */
	compare: boolean;
	commonFlow: boolean;
	rush: boolean;
	steady: boolean;
	bulk: boolean;
	crash: boolean;
	stop: boolean;
	timeout: boolean;
	/** The outages to run, each longer than Max Wait Seconds. */
	outages: OutageCause[];
}

/** The words that run an outage, and its cause. */
const OUTAGES: Record<string, OutageCause> = { outage: 'unavailable', unreachable: 'unreachable', refusing: 'refusing' };

const NAMED = ['rush', 'steady', 'bulk', 'crash', 'stop', 'timeout', ...Object.keys(OUTAGES)];

/** The whole number above 0 of `--name=N`, or undefined without it. */
function wholeNumberArgument(args: string[], name: string): number | undefined {
	const text = args.find((arg) => arg.startsWith(`--${name}=`))?.slice(`--${name}=`.length);
	if (text === undefined) return undefined;
	const value = Number(text);
	if (!(Number.isInteger(value) && value > 0)) throw new Error(`--${name} needs a whole number above 0, not ${text}`);
	return value;
}

/** Scenario letters pick scenarios (with the common flow), the named words those parts (`rush` with the steady state); nothing picks everything. */
function select(args: string[]): Selection {
	const words = args.filter((arg) => !arg.startsWith('--'));
	const concurrencyLimit = wholeNumberArgument(args, 'concurrency');
	const outageSeconds = wholeNumberArgument(args, 'outage-seconds');
	const fillOrders = wholeNumberArgument(args, 'fill-orders');
	const letters = words.filter((word) => !NAMED.includes(word));
	const unknown = letters.filter((letter) => !PEAK_SCENARIOS.some((scenario) => scenario.letter === letter));
	if (unknown.length > 0) throw new Error(`Unknown scenario(s) ${unknown.join(', ')}; known: ${PEAK_SCENARIOS.map((s) => s.letter).join(' ')} and ${NAMED.join(', ')}`);
	const compare = args.includes('--compare');
	if (words.length === 0) return { scenarios: PEAK_SCENARIOS, concurrencyLimit, outageSeconds, fillOrders, compare, commonFlow: true, rush: true, steady: true, bulk: true, crash: true, stop: true, timeout: true, outages: Object.values(OUTAGES) };
	return {
		scenarios: PEAK_SCENARIOS.filter((scenario) => letters.includes(scenario.letter)),
		concurrencyLimit,
		outageSeconds,
		fillOrders,
		compare,
		commonFlow: letters.length > 0,
		rush: words.includes('rush'),
		steady: words.includes('rush') || words.includes('steady'),
		bulk: words.includes('bulk'),
		crash: words.includes('crash'),
		stop: words.includes('stop'),
		timeout: words.includes('timeout'),
		outages: words.flatMap((word) => OUTAGES[word] ?? []),
	};
}

const started: BackgroundProcess[] = [];

/** `n8n start` leads its own process group (see scripts/processes.ts). */
function groupOf(server: BackgroundProcess): number {
	if (server.child.pid === undefined) throw new Error('n8n start has no process id');
	return server.child.pid;
}

interface PeakOutcome {
	results: ScenarioFigures[];
	commonFlow?: CommonFlowFigures;
	rush?: RushOutcome;
	shapes?: ShapesOutcome;
}

async function main(selection: Selection, keep: boolean): Promise<PeakOutcome> {
	const { scenarios, concurrencyLimit, outageSeconds, fillOrders, compare, commonFlow: withCommonFlow, rush: withRush, steady: withSteady, bulk: withBulk, crash: withCrash, stop: withStop, timeout: withTimeout, outages } = selection;
	log(`n8n ${selectedN8nVersion()} on Node.js ${process.versions.node} (test:peak)${concurrencyLimit === undefined ? '' : `, production concurrency limit ${concurrencyLimit}`}`);
	await ensureN8nInstalled(log);
	const userFolder = await makeUserFolder('n8n-peak-');
	const double = await ServiceDouble.start({ maxLifetimeMs: overallLimitMs(selection) });
	double.transactions.types.set(ORDER_TYPE.id, ORDER_TYPE.name);
	let closeStore = async () => {};
	const shutdown = async () => {
		for (const server of started) await server.stop();
		await closeStore();
		await double.close();
		if (keep) log(`kept ${userFolder}`);
		else await removeFolder(userFolder);
	};
	installExitHooks(shutdown);
	try {
		log('Packing the package and installing it as a community package ...');
		await installCommunityPackage(userFolder, await packProject(join(userFolder, 'pack')));
		const port = await freePort();
		const limit: Record<string, string> = concurrencyLimit === undefined ? {} : { N8N_CONCURRENCY_PRODUCTION_LIMIT: String(concurrencyLimit) };
		const env = await n8nEnvironment(userFolder, { N8N_PORT: String(port), N8N_LISTEN_ADDRESS: '127.0.0.1', ...limit });
		const credential = sandboxCredential(double);
		const commonFlowRuns = withCommonFlow ? commonFlowWorkflows(credential, double) : [];
		const rush = withSteady ? rushPlan(credential, double, selectedN8nVersion(), { flows: withRush, concurrencyLimit, fillOrders, compare }) : undefined;
		const shapes =
			withBulk || withCrash || withStop || withTimeout || outages.length > 0
				? shapesPlan(credential, selectedN8nVersion(), { bulk: withBulk, crash: withCrash, stop: withStop, timeout: withTimeout, outages, outageSeconds })
				: undefined;
		await importCredentials([credential, ...(rush?.credentials ?? [])], env, userFolder);

		const runs = scenarios.flatMap((scenario, index) =>
			(index % 2 === 0 ? (['keyed', 'plain'] as Variant[]) : (['plain', 'keyed'] as Variant[])).map((variant) => ({
				scenario,
				variant,
				workflow: scenarioWorkflow(variant, scenario.letter, credential),
			})),
		);
		const warmUpWorkflow = scenarioWorkflow('plain', warmUp.letter, credential);
		const folder = join(userFolder, 'workflows');
		await mkdir(folder);
		const files = [warmUpWorkflow.file, ...runs.map((run) => run.workflow.file), ...commonFlowRuns.map((run) => run.file), ...(rush?.workflowFiles ?? []), ...(shapes?.workflowFiles ?? [])];
		const ids = files.map((file) => file.id);
		const shared = ids.find((id, index) => ids.indexOf(id) !== index);
		if (shared !== undefined) throw new Error(`Two of test:peak's workflows have the id ${shared}: the file of one would replace the other's`);
		for (const file of files) await writeFile(join(folder, `${file.id}.json`), JSON.stringify(file));
		log(`Importing ${files.length} workflows, starting n8n ${selectedN8nVersion()} (regular mode, SQLite) and publishing them ...`);
		await importWorkflows(folder, env);
		let server = startN8nServer(env);
		started.push(server);
		await waitForEditor(port, server, START_LIMIT_MS);
		await publishWorkflows(port, files.map((file) => file.id));

		let store = await openSqliteExecutions(userFolder);
		closeStore = store.close;
		const environment: RunnerEnvironment = { double, store, webhookBase: () => `http://127.0.0.1:${port}/webhook` };
		log('Warming up with 20 orders ...');
		await untilWebhookServes(`${environment.webhookBase()}/${warmUpWorkflow.webhookPath}`, shopOrders('W-READY', 1)[0]);
		await runScenario(environment, warmUp, 'plain', warmUpWorkflow);
		let commonFlow: CommonFlowFigures | undefined;
		if (withCommonFlow) {
			log('Common flow: Create, Create with the key and the HTTP Request node, one order per webhook call ...');
			commonFlow = await measureCommonFlow({ double, store, webhookBase: environment.webhookBase(), n8nGroup: groupOf(server) }, commonFlowRuns);
		}

		const results: ScenarioFigures[] = [];
		for (const { scenario, variant, workflow } of runs) {
			log(`(${scenario.letter}) ${variant === 'keyed' ? 'with the key' : 'without the key'} ...`);
			results.push(await runScenario(environment, scenario, variant, workflow));
		}
		const rushOutcome = await rush?.run(
			{
				double,
				store,
				webhookBase: environment.webhookBase(),
				n8nGroup: groupOf(server),
				credentialData: async (id) => await credentialData(port, id),
				historyEntries: async (workflowId) => await keyHistoryEntries(userFolder, workflowId),
				executionSpans: async (workflowId) => await executionSpans(userFolder, workflowId),
			},
			log,
		);
		const shapesOutcome = await shapes?.run(
			{
				double,
				webhookBase: environment.webhookBase(),
				store: () => store,
				executionStopper: async () => await executionStopper(port),
				installRetry: async (shopWorkflowId) => void (await installRetryExample(port, shopWorkflowId)),
				kill: async (signal) => {
					// An orchestrator stops n8n's own process, which stops its children itself.
					process.kill(signal === 'SIGKILL' ? -groupOf(server) : groupOf(server), signal);
					await server.exited;
				},
				restart: async () => {
					await store.close();
					server = startN8nServer(env);
					started.push(server);
					await waitForEditor(port, server, START_LIMIT_MS);
					store = await openSqliteExecutions(userFolder);
					closeStore = store.close;
				},
			},
			log,
		);
		return { results, commonFlow, rush: rushOutcome, shapes: shapesOutcome };
	} finally {
		await shutdown();
	}
}

function runHere(): void {
	const args = process.argv.slice(2);
	const selection = select(args);
	const limitMs = overallLimitMs(selection);
	const watchdog = setTimeout(() => {
		console.error(`The peak-load run took longer than ${limitMs / 60_000} minutes; stopping.`);
		stopAllChildren('SIGKILL');
		process.exit(1);
	}, limitMs);
	watchdog.unref();
	const t0 = performance.now();
	main(selection, args.includes('--keep')).then(
		({ results, commonFlow, rush, shapes }) => {
			const common = commonFlow === undefined ? { lines: [], passed: true } : describeCommonFlow(commonFlow);
			for (const line of common.lines) log(line);
			const { lines, passed, trusted } = describeScenarios(results, selectedN8nVersion());
			for (const line of lines) log(line);
			const rushed = rush === undefined ? { lines: [], passed: true } : describeRushOutcome(rush);
			for (const line of rushed.lines) log(line);
			const shaped = shapes === undefined ? { lines: [], passed: true } : describeShapesOutcome(shapes);
			for (const line of shaped.lines) log(line);
			const left = groupsStillRunning(started);
			if (left.length > 0) log(`Process groups still running after the stop: ${left.join(', ')}`);
			log(`whole run: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
			const ok = passed && trusted && common.passed && rushed.passed && shaped.passed && left.length === 0;
			log(`peak load: ${ok ? 'all checks passed' : 'FAILED'}`);
			process.exit(ok ? 0 : 1);
		},
		(error) => {
			console.error(error instanceof Error ? error.stack : error);
			log('peak load: FAILED');
			process.exit(1);
		},
	);
}

if (require.main === module) {
	onN8nNode(process.argv.slice(2), runHere);
}
