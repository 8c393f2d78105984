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
import { readItemCounts } from '../peak/executions';
import { describeOutage, measureOutage, type OutageFigures } from '../peak/outage';
import { publishWorkflows, unpublishWorkflow } from '../peak/publish';
import type { RushSettings } from '../peak/rushSettings';
import type { OutageCause, RushWorkflow } from '../peak/rushWorkflows';
import { scenarioWorkflow, STRICT_EXAMPLE } from '../peak/workflows';
import { waitUntilPublished } from './cluster';
import { postgresExecutions } from './postgresExecutions';
import { installRedeliveryExample, REDELIVERY_EXAMPLE } from './redeliveryExample';
import { ORDER_COUNTER_DATABASE } from './peakScenarios';
import { forgetPendingOrders } from './services';

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

/**
 * n8n's workflow timeout: the example with Settings › Timeout Workflow 20 s, and a service that
 * holds every answer for 40 s (less than Create's request timeout, 120 s), then refuses the
 * held requests (503). Create stops waiting 5 s before the timeout, so the orders still waiting
 * end as not sent yet; an execution whose request was under way outlasts the timeout, and n8n's
 * worker (which checks the timeout as each node starts) cancels it at the node after Create.
 */
const TIMEOUT_SECONDS = 20;
const TIMEOUT: RushSettings['outage'] = { orders: 40, ordersPerSecond: 10, maxWaitSeconds: 120, outageMs: 40_000, holdMs: 40_000 };
const TIMEOUT_SETUP = { ...SETUP, create: `${SETUP.create.slice(0, -1)}, Settings › Timeout Workflow ${TIMEOUT_SECONDS} s)` };

/** The shop workflow of each crash and of the outage: the example as shipped, each under its own id and webhook path. */
export interface QueueSetupWorkflows {
	crashes: Record<QueueCrash, RushWorkflow<string>>;
	outage: RushWorkflow<OutageCause>;
	timeout: RushWorkflow<OutageCause>;
}

export function queueCrashWorkflows(credential: { id: string; name: string }): QueueSetupWorkflows {
	const workflowOf = <Flow extends string>(flow: Flow, letter: string): RushWorkflow<Flow> => {
		const { file, webhookPath } = scenarioWorkflow('strict', letter, credential);
		return { flow, file, webhookPath };
	};
	const timeout = workflowOf<OutageCause>('unavailable', 't');
	timeout.file.settings = { ...(timeout.file.settings as object), executionTimeout: TIMEOUT_SECONDS };
	return { crashes: { worker: workflowOf('worker', ENDED.worker.letter), main: workflowOf('main', ENDED.main.letter) }, outage: workflowOf('unavailable', 'o'), timeout };
}

/** Every shop workflow of the README's queue-mode setup, to be imported. */
export const setupWorkflowFiles = (workflows: QueueSetupWorkflows) => [...Object.values(workflows.crashes), workflows.outage, workflows.timeout].map((workflow) => workflow.file);

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
	// The outage's own redelivery takes over the Redis database.
	if (redelivery !== undefined) await unpublishWorkflow(context.mainPort, redelivery);
	return outcome;
}

/** The outage, or n8n's timeout (`timedOut`), on the n8n as started, with its own shop workflow and redelivery. */
export async function runQueueOutage(context: Pick<QueueCrashContext, 'double' | 'postgresPort' | 'mainPort'> & { redisPort: number }, setup: QueueSetupWorkflows, timedOut: boolean, log: (line: string) => void): Promise<OutageFigures> {
	const workflow = timedOut ? setup.timeout : setup.outage;
	await forgetPendingOrders(context.redisPort, ORDER_COUNTER_DATABASE);
	await publishWorkflows(context.mainPort, [workflow.file.id]);
	await waitUntilPublished(context.postgresPort);
	const webhookBase = webhookBaseOf(context.mainPort);
	log(timedOut ? `The README's queue-mode setup with Timeout Workflow ${TIMEOUT_SECONDS} s, the service holding its answers ${TIMEOUT.outageMs / 1000} s, the shop delivering once ...` : `The README's queue-mode setup through an outage of ${OUTAGE.outageMs / 1000} s, the shop delivering once ...`);
	let redelivery: string | undefined;
	const installRetry = async () => void (redelivery = await installRedeliveryExample(context.mainPort, `${webhookBase}/${workflow.webhookPath}`));
	try {
		const figures = await measureOutage({ double: context.double, webhookBase, store: () => postgresExecutions(context.postgresPort), installRetry }, workflow, timedOut ? TIMEOUT : OUTAGE);
		// Where an order was lost, what each run of the redelivery did with the records it read.
		if (figures.queued.never > 0 && redelivery !== undefined) {
			const shown = { 'Older Than 3 Minutes': (json: Record<string, unknown>) => `${(json.body as { id?: unknown } | undefined)?.id}@${json.execution}`, 'Its Execution': (json: Record<string, unknown>) => json.id, 'Counter Lapsed?': (json: Record<string, unknown>) => json.id };
			for (const line of await readItemCounts(postgresExecutions(context.postgresPort), redelivery, shown)) log(`  redelivery ${line}`);
		}
		return figures;
	} finally {
		// One redelivery per Redis database: the next run's takes over.
		if (redelivery !== undefined) await unpublishWorkflow(context.mainPort, redelivery);
	}
}

/** The outage's or the timeout's lines, and whether it passed. */
export const describeQueueOutage = (figures: OutageFigures, timedOut: boolean) => (timedOut ? describeOutage(figures, TIMEOUT, TIMEOUT_SETUP) : describeOutage(figures, OUTAGE, SETUP));

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
