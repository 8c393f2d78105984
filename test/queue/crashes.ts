/**
 * Issue 57 in queue mode: a shop's rush through the README's queue-mode setup as a user imports it
 * (examples/shop-order-sent-once-redis.json, which keeps each order in Redis until it is decided
 * and counts its deliveries in front of keyed Create, and examples/redeliver-pending-orders.json),
 * the shop delivering each order once, while one worker is
 * killed (SIGKILL, as an out-of-memory kill does) and started again, and while the main instance
 * is stopped (SIGTERM) and started again, and, run alone, through an outage of the service longer
 * than Max Wait Seconds. test:peak's crash check (crash.ts) drives, measures and judges each crash: no order
 * queued twice, none left unsent beyond the requests under way at the kill, every order queued
 * within 300 s of the process serving again; its outage check (outage.ts) the outage: every order
 * queued once, within 300 s of the outage's end.
 */
import type { ServiceDouble } from '../double/server';
import { type CrashEnvironment, type CrashFigures, describeCrash, type EndSignal, measureCrash } from '../peak/crash';
import { describeOutage, measureOutage, type OutageFigures } from '../peak/outage';
import { publishWorkflows, unpublishWorkflow } from '../peak/publish';
import type { RushSettings } from '../peak/rushSettings';
import type { OutageCause, RushWorkflow } from '../peak/rushWorkflows';
import { scenarioWorkflow, STRICT_EXAMPLE } from '../peak/workflows';
import { waitUntilPublished } from './cluster';
import { postgresExecutions } from './postgresExecutions';
import { installRedeliveryExample, REDELIVERY_EXAMPLE } from './redeliveryExample';

/** How long n8n's main may take to fail a killed worker's executions: once Bull's stalled-job check (every 30 s) finds their job's lock lapsed. */
const QUEUE_RECOVERY_LIMIT_MS = 150_000;

export type QueueCrash = 'worker' | 'main';

const ENDED: Record<QueueCrash, { ended: string; signal: EndSignal; letter: string }> = {
	worker: { ended: 'one of the two workers', signal: 'SIGKILL', letter: 'k' },
	main: { ended: 'the main instance', signal: 'SIGTERM', letter: 'm' },
};

/**
 * The outage: the service answers 503 for longer than the example's Max Wait Seconds (its
 * default, 120), so that its executions keep their orders' records for the redelivery; 100
 * orders at 10 a second, as test:peak's outage.
 */
const OUTAGE: RushSettings['outage'] = { orders: 100, ordersPerSecond: 10, maxWaitSeconds: 120, outageMs: 180_000 };

const SETUP = {
	create: `the README's queue-mode setup (${STRICT_EXAMPLE}: Create with the order id as Deduplication Key, On Error › Continue)`,
	sendsAgain: `its redelivery (${REDELIVERY_EXAMPLE}, every minute)`,
};

/** The shop workflow of each crash and of the outage: the example as shipped, each under its own id and webhook path. */
export interface QueueSetupWorkflows {
	crashes: Record<QueueCrash, RushWorkflow<string>>;
	outage: RushWorkflow<OutageCause>;
}

export function queueCrashWorkflows(credential: { id: string; name: string }): QueueSetupWorkflows {
	const workflowOf = <Flow extends string>(flow: Flow, letter: string): RushWorkflow<Flow> => {
		const { file, webhookPath } = scenarioWorkflow('strict', letter, credential);
		return { flow, file, webhookPath };
	};
	return { crashes: { worker: workflowOf('worker', ENDED.worker.letter), main: workflowOf('main', ENDED.main.letter) }, outage: workflowOf('unavailable', 'o') };
}

/** Every shop workflow of the README's queue-mode setup, to be imported. */
export const setupWorkflowFiles = (workflows: QueueSetupWorkflows) => [...Object.values(workflows.crashes), workflows.outage].map((workflow) => workflow.file);

/** Where main serves the shop workflows' webhooks (it keeps one port across its restarts). */
const webhookBaseOf = (mainPort: number) => `http://127.0.0.1:${mainPort}/webhook`;

export interface QueueCrashContext {
	double: ServiceDouble;
	postgresPort: number;
	mainPort: number;
	/** Stops the main instance with `signal` and resolves once it exited. */
	stopMain(signal: EndSignal): Promise<void>;
	startMain(): Promise<void>;
	/** Kills worker 1's process group and resolves once it exited. */
	killWorker(): Promise<void>;
	startWorker(): Promise<void>;
}

export interface QueueCrashOutcome {
	settings: RushSettings['crash'];
	runs: Partial<Record<QueueCrash, CrashFigures>>;
}

/** Runs each crash in turn on its own workflow (published first) and its own orders. */
export async function runQueueCrashes(context: QueueCrashContext, setup: QueueSetupWorkflows, settings: RushSettings['crash'], log: (line: string) => void): Promise<QueueCrashOutcome> {
	const outcome: QueueCrashOutcome = { settings, runs: {} };
	const workflows = setup.crashes;
	await publishWorkflows(context.mainPort, Object.values(workflows).map((workflow) => workflow.file.id));
	await waitUntilPublished(context.postgresPort);
	const webhookBase = webhookBaseOf(context.mainPort);
	let redelivery: string | undefined;
	const redeliveryFor = (webhookPath: string) => async () => {
		// One redelivery per Redis database, as a user with one shop workflow has: it delivers every kept record to its one webhook.
		if (redelivery !== undefined) await unpublishWorkflow(context.mainPort, redelivery);
		redelivery = await installRedeliveryExample(context.mainPort, `${webhookBase}/${webhookPath}`);
	};
	for (const crash of ['worker', 'main'] as const) {
		log(`The README's queue-mode setup, ${ENDED[crash].ended} ${ENDED[crash].signal === 'SIGKILL' ? 'killed' : 'stopped'} mid-rush, the shop delivering once ...`);
		const environment: CrashEnvironment = {
			double: context.double,
			ended: `${ENDED[crash].ended} (queue mode)`,
			recoveryLimitMs: QUEUE_RECOVERY_LIMIT_MS,
			webhookBase,
			store: () => postgresExecutions(context.postgresPort),
			kill: async (signal) => await (crash === 'worker' ? context.killWorker() : context.stopMain(signal)),
			restart: async () => await (crash === 'worker' ? context.startWorker() : context.startMain()),
			installRetry: redeliveryFor(workflows[crash].webhookPath),
			sendsAgain: { example: REDELIVERY_EXAMPLE, byRetry: false },
		};
		outcome.runs[crash] = await measureCrash(environment, workflows[crash], settings, ENDED[crash].signal);
	}
	return outcome;
}

/**
 * The outage alone, on the n8n as started (`node .build-test/test/queue/run.js outage`): not in
 * the default run, since it fails on the current sending (the docs' Deduplication Key limits:
 * keys released on two workers at once brought back by each other's writes).
 */
export async function runQueueOutage(context: Pick<QueueCrashContext, 'double' | 'postgresPort' | 'mainPort'>, setup: QueueSetupWorkflows, log: (line: string) => void): Promise<OutageFigures> {
	await publishWorkflows(context.mainPort, [setup.outage.file.id]);
	await waitUntilPublished(context.postgresPort);
	const webhookBase = webhookBaseOf(context.mainPort);
	log(`The README's queue-mode setup through an outage of ${OUTAGE.outageMs / 1000} s, the shop delivering once ...`);
	const installRetry = async () => void (await installRedeliveryExample(context.mainPort, `${webhookBase}/${setup.outage.webhookPath}`));
	return await measureOutage({ double: context.double, webhookBase, store: () => postgresExecutions(context.postgresPort), installRetry }, setup.outage, OUTAGE);
}

/** The outage's lines, and whether it passed. */
export const describeQueueOutage = (figures: OutageFigures) => describeOutage(figures, OUTAGE, SETUP);

/** The lines of each crash, and what broke: empty when every crash passed. */
export function describeQueueCrashes(outcome: QueueCrashOutcome): { lines: string[]; failures: string[] } {
	const lines: string[] = [];
	const failures: string[] = [];
	for (const [crash, figures] of Object.entries(outcome.runs)) {
		const described = describeCrash(figures, outcome.settings);
		lines.push(...described.lines);
		if (!described.passed) failures.push(`${ENDED[crash as QueueCrash].ended} ${figures.signal}`);
	}
	return { lines, failures };
}
