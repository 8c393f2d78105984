/**
 * `npm run test:queue`: the packed package in n8n's queue mode. Installs what is missing
 * (Debian's redis-server, the release's Postgres as postgres.ts chooses it, n8n by the project's
 * recipe), starts a private Postgres and Redis, one n8n main instance and two workers, the service double, imports a credential
 * and the workflows, publishes them, runs the checks and prints the figures. Everything it
 * started is stopped at the end, also when a check fails or the run is interrupted.
 *
 * Usage: node .build-test/test/queue/run.js [--n8n=VERSION] [--keep] [rush] [crash] [outage]
 * (--n8n another release scripts/n8nRelease.ts installs, 2.8.4 without it; --keep leaves the temporary folder;
 * `rush` starts both workers and runs the rush across them alone, as test:peak's `rush` does; `crash`
 * the README's queue-mode setup through a killed worker and a stopped main instance alone, crashes.ts; `outage`
 * that setup through an outage of 180 s and through n8n's workflow timeout alone)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

import {
	ensureN8nInstalled,
	freePort,
	importCredentials,
	importWorkflows,
	installCommunityPackage,
	makeUserFolder,
	onN8nNode,
	packProject,
	removeFolder,
	selectedN8nVersion,
} from '../../scripts/n8n';
import { type BackgroundProcess, groupsStillRunning, installExitHooks, stopAllChildren } from '../../scripts/processes';
import { sandboxCredential } from '../../scripts/sandbox';
import { ServiceDouble } from '../double/server';
import { cliCommand, memoryOf, queueEnvironment, startMain, startWorker, stopMain, type ClusterSettings, type N8nInstance } from './cluster';
import { startCollector } from './collector';
import { describeQueueCrashes, describeQueueOutage, queueCrashWorkflows, runQueueCrashes, runQueueOutage, setupWorkflowFiles } from './crashes';
import { measureHardKill } from './hardKill';
import { runOrders } from './orders';
import { orderCounterCredential, peakFailures, peakRuns, runPeakScenarios } from './peakScenarios';
import { printFigures, type Figures } from './report';
import { queueRushFailures, runQueueRush } from './rush';
import { DEFAULT_CONCURRENCY, queueRushRuns } from './rushRuns';
import { postgresSourceFor, serverVersion, startPostgres } from './postgres';
import { ensureServicesInstalled, startRedis } from './services';
import { BlockLedger, runTrigger, type TriggerContext } from './trigger';
import { rushSettingsFor } from '../peak/rushSettings';
import { ORDER_TYPE } from '../peak/workflows';
import { BLOCKS_WORKFLOW_ID, blocksWorkflow, ORDERS_WORKFLOW_ID, ordersWorkflow } from './workflows';

const OVERALL_LIMIT_MS = 30 * 60_000;
const ORDERS = 200;
/** How long the service takes to answer each request, per batch of orders. */
const SERVICE_DELAYS_MS = [0, 200];
const PLATFORM_TIME_ZONE = 'Europe/Berlin';

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);

/** Every long-running process this run started, in start order. */
const started: BackgroundProcess[] = [];

const seconds = (since: number) => (performance.now() - since) / 1000;

/** Filled in as the run goes, so that a failed run still shows what it measured. */
const figures: Figures = { n8nVersion: '', cores: cpus().length, orders: [], mainStops: [], peak: [] };

/** Which parts run: everything, or the rush or the crashes alone (with what they need). */
interface Parts {
	rushOnly: boolean;
	crashOnly: boolean;
	outageOnly: boolean;
}

async function main(keep: boolean, { rushOnly, crashOnly, outageOnly }: Parts): Promise<void> {
	figures.n8nVersion = selectedN8nVersion();
	log(`n8n ${figures.n8nVersion} on Node.js ${process.versions.node} (test:queue)`);
	const postgresSource = postgresSourceFor(figures.n8nVersion);
	await ensureServicesInstalled(postgresSource, log);
	await ensureN8nInstalled(log);
	const scratch = await makeUserFolder('n8n-queue-');
	const double = await ServiceDouble.start({ maxLifetimeMs: OVERALL_LIMIT_MS, timeZone: PLATFORM_TIME_ZONE });
	const collector = await startCollector();
	const shutdown = async () => {
		// n8n before the services it uses: newest first.
		for (const server of [...started].reverse()) await server.stop();
		await double.close();
		await collector.close();
		if (keep) log(`kept ${scratch}`);
		else await removeFolder(scratch);
	};
	installExitHooks(shutdown);
	try {
		const userFolder = join(scratch, 'n8n');
		const logFolder = join(scratch, 'logs');
		await mkdir(userFolder);
		await mkdir(logFolder);

		log('Starting Postgres and Redis ...');
		const postgres = await startPostgres(postgresSource, scratch, started);
		figures.postgresVersion = await serverVersion(postgres.port);
		const redis = await startRedis(scratch, started);
		const settings: ClusterSettings = { userFolder, logFolder, postgresPort: postgres.port, redisPort: redis.port, mainPort: await freePort(), started };

		log('Packing the package and installing it into the shared user folder as a community package ...');
		await installCommunityPackage(userFolder, await packProject(join(scratch, 'pack')));

		double.transactions.types.set(ORDER_TYPE.id, ORDER_TYPE.name);
		// The credential's Platform Time Zone is the double's: Europe/Berlin, while n8n stays at America/New_York.
		const credential = sandboxCredential(double);
		const runs = peakRuns(credential);
		const rush = queueRushRuns(credential, double, rushSettingsFor(figures.n8nVersion));
		const crashWorkflows = queueCrashWorkflows(credential);
		log(`Importing the credentials and ${runs.length + rush.runs.length + 2 + setupWorkflowFiles(crashWorkflows).length} workflows, publishing the orders and blocks workflows ...`);
		const cliEnv = await queueEnvironment(settings, 'cli');
		await importCredentials([credential, orderCounterCredential(redis.port), rush.credential], cliEnv, scratch);
		const workflowFolder = join(scratch, 'workflows');
		await mkdir(workflowFolder);
		for (const workflow of [ordersWorkflow(credential), blocksWorkflow(credential, collector.url), ...runs.map((run) => run.workflow.file), ...rush.runs.map((run) => run.workflow.file), ...setupWorkflowFiles(crashWorkflows)]) {
			await writeFile(join(workflowFolder, `${workflow.id}.json`), JSON.stringify(workflow));
		}
		await importWorkflows(workflowFolder, cliEnv);
		for (const id of [ORDERS_WORKFLOW_ID, BLOCKS_WORKFLOW_ID]) await cliCommand(settings, ['publish:workflow', `--id=${id}`]);

		// Written before the trigger's first activation: never to be emitted.
		const ledger = new BlockLedger(double);
		const unseen = ledger.add('before-activation', 3, 60_000);

		log('Starting the main instance and worker 1 ...');
		let startedAt = performance.now();
		const [firstMain, worker1] = await Promise.all([startMain(settings), startWorker(settings, 1, DEFAULT_CONCURRENCY)]);
		figures.startSeconds = seconds(startedAt);
		let main: N8nInstance = firstMain;
		const workers: N8nInstance[] = [worker1];

		const context = () => ({ double, postgresPort: postgres.port, main, workers });
		/** 200 orders with the service answering at once, then 200 with it 200 ms away, as a real one may be. */
		const ordersBatches = async () => {
			for (const serviceDelayMs of SERVICE_DELAYS_MS) {
				double.faults.delayMs = serviceDelayMs;
				const run = await runOrders(context(), `W${workers.length}D${serviceDelayMs}`, ORDERS);
				figures.orders.push({ workers: workers.length, serviceDelayMs, run });
			}
			double.faults.delayMs = 0;
		};
		const peakContext = { double, postgresPort: postgres.port, main: () => main, workers };
		const startWorker2 = async () => void workers.push(await startWorker(settings, 2, DEFAULT_CONCURRENCY));
		/** Everything but the rush: orders on one worker and on two, the trigger, orders arriving together. */
		const checksBeforeTheRush = async () => {
			log('2 x 200 orders on one worker ...');
			await ordersBatches();
			log('Starting worker 2, then 2 x 200 orders on two workers ...');
			await startWorker2();
			await ordersBatches();
			figures.memory = Object.fromEntries(await Promise.all([main, ...workers].map(async (instance) => [instance.name, await memoryOf(instance)])));

			const triggerContext: TriggerContext = {
				double,
				collector,
				workers: () => workers,
				async restartMain(signal, whileDown) {
					figures.mainStops.push(await stopMain(main, signal, postgres.port));
					await whileDown?.();
					startedAt = performance.now();
					main = await startMain(settings);
					return seconds(startedAt);
				},
			};
			log('Trigger: blocks between polls, then three SIGTERM restarts of the main instance ...');
			figures.trigger = await runTrigger(triggerContext, ledger, unseen);
			log('Trigger: one SIGKILL of the main instance right after a poll got its answer ...');
			figures.hardKill = await measureHardKill(triggerContext, ledger, postgres.port);
			log('Orders arriving together (test:peak scenarios s, a, b, d; q and l of issue 42), with the Deduplication Key and with the strict arrangement ...');
			await runPeakScenarios(peakContext, runs, (run, took) => {
				log(`(${run.letter}) ${run.variant} done in ${took.toFixed(1)} s`);
				figures.peak.push(run);
			});
		};
		log('Warming up with 20 orders ...');
		await runOrders(context(), 'WARMUP', 20);
		const outagesContext = { double, postgresPort: postgres.port, mainPort: settings.mainPort, redisPort: redis.port };
		const runOutages = async () => {
			figures.outage = await runQueueOutage(outagesContext, crashWorkflows, false, log);
			figures.timeout = await runQueueOutage(outagesContext, crashWorkflows, true, log);
			return [describeQueueOutage(figures.outage, false), describeQueueOutage(figures.timeout, true)].some((described) => !described.passed)
				? ["the README's queue-mode setup through an outage or n8n's timeout: an order not queued exactly once, or late"]
				: [];
		};
		if (outageOnly) {
			await startWorker2();
			const outagesBroken = await runOutages();
			if (outagesBroken.length > 0) throw new Error(outagesBroken.join('; '));
			return;
		}
		if (rushOnly || crashOnly) await startWorker2();
		else await checksBeforeTheRush();
		let workerConcurrency = DEFAULT_CONCURRENCY;
		const useWorkerConcurrency = async (concurrency: number) => {
			if (concurrency === workerConcurrency) return;
			log(`Restarting both workers with --concurrency=${concurrency} ...`);
			await Promise.all(workers.map((worker) => worker.process.stop()));
			workers.splice(0, workers.length, ...(await Promise.all(workers.map((_, index) => startWorker(settings, index + 1, concurrency)))));
			workerConcurrency = concurrency;
		};
		const broken: string[] = [];
		if (!crashOnly) {
			log('A shop\'s rush across the workers against the account\'s request budget ...');
			figures.rush = await runQueueRush({ ...peakContext, useWorkerConcurrency }, rush, rushSettingsFor(figures.n8nVersion), log);
			broken.push(...peakFailures(figures.peak), ...queueRushFailures(figures.rush));
		}
		if (!rushOnly) {
			await useWorkerConcurrency(DEFAULT_CONCURRENCY);
			const crashContext = {
				double,
				postgresPort: postgres.port,
				mainPort: settings.mainPort,
				async stopMain(signal: 'SIGTERM' | 'SIGKILL') {
					figures.mainStops.push(await stopMain(main, signal, postgres.port));
				},
				async startMain() {
					main = await startMain(settings);
				},
				async killWorker() {
					const [worker] = workers;
					if (worker.process.child.pid !== undefined) process.kill(-worker.process.child.pid, 'SIGKILL');
					await worker.process.exited;
				},
				async startWorker() {
					workers[0] = await startWorker(settings, 1, workerConcurrency);
				},
			};
			figures.crashes = await runQueueCrashes(crashContext, crashWorkflows, rushSettingsFor(figures.n8nVersion).crash, log);
			broken.push(...describeQueueCrashes(figures.crashes).failures, ...(await runOutages()));
		}
		if (broken.length > 0) throw new Error(`Orders arriving together, in a rush or through a crash: ${broken.join('; ')}`);
	} finally {
		const stopping = performance.now();
		await shutdown();
		figures.stopSeconds = seconds(stopping);
		figures.processGroupsStopped = started.length;
	}
}

/** The run, then the proof that it left nothing running, whether it passed or not. */
async function runAndCheckLeftovers(keep: boolean, parts: Parts): Promise<void> {
	let failure: unknown;
	await main(keep, parts).catch((error) => (failure = error));
	const left = groupsStillRunning(started);
	figures.processGroupsLeft = left.length;
	if (left.length > 0) console.error(`Process groups still running after the stop: ${left.join(', ')}`);
	if (failure !== undefined) throw failure;
	if (left.length > 0) throw new Error('the run left processes behind');
}

function runHere(): void {
	const watchdog = setTimeout(() => {
		console.error(`The queue-mode run took longer than ${OVERALL_LIMIT_MS / 60_000} minutes; stopping.`);
		stopAllChildren('SIGKILL');
		process.exit(1);
	}, OVERALL_LIMIT_MS);
	watchdog.unref();
	const t0 = performance.now();
	runAndCheckLeftovers(process.argv.includes('--keep'), { rushOnly: process.argv.includes('rush'), crashOnly: process.argv.includes('crash'), outageOnly: process.argv.includes('outage') }).then(
		() => {
			printFigures({ ...figures, totalSeconds: seconds(t0) }, log);
			log('queue mode: all checks passed');
			process.exit(0);
		},
		(error) => {
			console.error(error instanceof Error ? error.stack : error);
			printFigures({ ...figures, totalSeconds: seconds(t0) }, log);
			log('queue mode: FAILED');
			process.exit(1);
		},
	);
}

if (require.main === module) {
	onN8nNode(process.argv.slice(2), runHere);
}
