/**
 * Issue 57 in queue mode: a shop's rush through the README's queue-mode setup as a user imports it
 * (examples/shop-order-sent-once-redis.json, which keeps each order in Redis until it is decided
 * and counts its deliveries in front of keyed Create, and examples/redeliver-pending-orders.json),
 * the shop delivering each order once, while one worker is
 * killed (SIGKILL, as an out-of-memory kill does) and started again, and while the main instance
 * is stopped (SIGTERM) and started again. test:peak's crash check (crash.ts) drives, measures and
 * judges each: no order queued twice, none left unsent beyond the requests under way at the kill,
 * every order queued within 300 s of the process serving again.
 */
import type { ServiceDouble } from '../double/server';
import { type CrashEnvironment, type CrashFigures, describeCrash, type EndSignal, measureCrash } from '../peak/crash';
import { publishWorkflows } from '../peak/publish';
import type { RushSettings } from '../peak/rushSettings';
import type { RushWorkflow } from '../peak/rushWorkflows';
import { scenarioWorkflow } from '../peak/workflows';
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

/** The shop workflow of each crash: the example as shipped, under its own id and webhook path. */
export function queueCrashWorkflows(credential: { id: string; name: string }): Record<QueueCrash, RushWorkflow<string>> {
	const workflowOf = (crash: QueueCrash): RushWorkflow<string> => {
		const { file, webhookPath } = scenarioWorkflow('strict', ENDED[crash].letter, credential);
		return { flow: crash, file, webhookPath };
	};
	return { worker: workflowOf('worker'), main: workflowOf('main') };
}

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
export async function runQueueCrashes(context: QueueCrashContext, workflows: Record<QueueCrash, RushWorkflow<string>>, settings: RushSettings['crash'], log: (line: string) => void): Promise<QueueCrashOutcome> {
	const outcome: QueueCrashOutcome = { settings, runs: {} };
	await publishWorkflows(context.mainPort, Object.values(workflows).map((workflow) => workflow.file.id));
	await waitUntilPublished(context.postgresPort);
	for (const crash of ['worker', 'main'] as const) {
		log(`The README's queue-mode setup, ${ENDED[crash].ended} ${ENDED[crash].signal === 'SIGKILL' ? 'killed' : 'stopped'} mid-rush, the shop delivering once ...`);
		const webhookBase = `http://127.0.0.1:${context.mainPort}/webhook`;
		const environment: CrashEnvironment = {
			double: context.double,
			ended: `${ENDED[crash].ended} (queue mode)`,
			recoveryLimitMs: QUEUE_RECOVERY_LIMIT_MS,
			webhookBase,
			store: () => postgresExecutions(context.postgresPort),
			kill: async (signal) => await (crash === 'worker' ? context.killWorker() : context.stopMain(signal)),
			restart: async () => await (crash === 'worker' ? context.startWorker() : context.startMain()),
			installRetry: async () => void (await installRedeliveryExample(context.mainPort, `${webhookBase}/${workflows[crash].webhookPath}`)),
			sendsAgain: { example: REDELIVERY_EXAMPLE, byRetry: false },
		};
		outcome.runs[crash] = await measureCrash(environment, workflows[crash], settings, ENDED[crash].signal);
	}
	return outcome;
}

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
