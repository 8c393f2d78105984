/**
 * Check 5: the rush across the workers (rushRuns.ts). Each run is measured as test:peak measures
 * its rush (test/peak/rush.ts) and judged as it judges Create and the paced Create: no order lost
 * or doubled, no execution failed, refused requests at most 5% of accepted plus one per worker
 * (none with the shares set), execution p95 at most 10 s; the strict arrangement fails on a lost
 * or doubled order only.
 * Printed besides: orders per accepted POST, and how many executions each worker's log says it ran.
 */
import { credentialData, publishWorkflows, unpublishWorkflow } from '../peak/publish';
import { measureRushFlow, type RushFigures } from '../peak/rush';
import { rushFailures, rushFlowLines, rushHeading } from '../peak/rushReport';
import type { RushSettings } from '../peak/rushSettings';
import type { CredentialToImport } from '../../scripts/n8n';
import { waitUntilPublished } from './cluster';
import { workersOf } from './orders';
import type { PeakContext } from './peakScenarios';
import { postgresExecutions } from './postgresExecutions';
import { type QueueRushRun, RUSH_WORKERS, workerShare } from './rushRuns';
import { BLOCKS_WORKFLOW_ID } from './workflows';

export interface QueueRushContext extends PeakContext {
	/** Restarts both workers with `--concurrency=concurrency`, unless they run with it already. */
	useWorkerConcurrency(concurrency: number): Promise<void>;
}

export interface QueueRushResult {
	run: Omit<QueueRushRun, 'workflow'>;
	figures: RushFigures;
	/** Executions of the run's orders each worker's log says it finished, by worker name. */
	byWorker: Record<string, number>;
}

export interface QueueRushOutcome {
	settings: RushSettings;
	results: QueueRushResult[];
	/** What went wrong besides the runs' own figures. */
	problems: string[];
}

/**
 * Publishes the runs' workflows on the running main instance and takes the trigger's workflow
 * off it, so that the workers are the account's only users; then runs each in turn.
 */
export async function runQueueRush(
	context: QueueRushContext,
	plan: { credential: CredentialToImport; runs: QueueRushRun[] },
	settings: RushSettings,
	log: (line: string) => void,
): Promise<QueueRushOutcome> {
	const port = context.main().port;
	await publishWorkflows(port, plan.runs.map((run) => run.workflow.file.id));
	await waitUntilPublished(context.postgresPort);
	await unpublishWorkflow(port, BLOCKS_WORKFLOW_ID);
	const problems: string[] = [];
	const share = (await credentialData(port, plan.credential.id)).maxRequestsPerSecond;
	if (share !== workerShare(settings)) problems.push(`the shares credential reached n8n with maxRequestsPerSecond ${JSON.stringify(share)}, not ${workerShare(settings)}`);

	const environment = { double: context.double, store: postgresExecutions(context.postgresPort), webhookBase: `http://127.0.0.1:${port}/webhook` };
	const results: QueueRushResult[] = [];
	for (const { workflow, ...run } of plan.runs) {
		await context.useWorkerConcurrency(run.concurrency);
		log(`Rush at concurrency ${run.concurrency}: ${run.label} ...`);
		const figures = await measureRushFlow(environment, workflow, settings);
		const ranOn = await workersOf(context.workers, figures.executionIds);
		const byWorker = Object.fromEntries(context.workers.map((worker) => [worker.name, [...ranOn.values()].filter((names) => names.includes(worker.name)).length]));
		results.push({ run, figures, byWorker });
	}
	return { settings, results, problems };
}

function failuresOf({ run, figures }: QueueRushResult): string[] {
	if (run.judgedAs !== undefined) return rushFailures({ ...figures, flow: run.judgedAs }, RUSH_WORKERS);
	return [figures.queuedNever > 0 ? `${figures.queuedNever} orders lost` : '', figures.queuedTwice > 0 ? `${figures.queuedTwice} orders doubled` : ''].filter(Boolean);
}

/** What broke the check. */
export function queueRushFailures(outcome: QueueRushOutcome): string[] {
	const failed = outcome.results.filter((result) => failuresOf(result).length > 0);
	return [...outcome.problems, ...failed.map((result) => `rush ${result.run.label} at concurrency ${result.run.concurrency}: ${failuresOf(result).join(', ')}`)];
}

export function describeQueueRush(outcome: QueueRushOutcome): string[] {
	const lines = [rushHeading(outcome.settings, `queue mode, ${RUSH_WORKERS} workers`), ...outcome.problems.map((problem) => `  ${problem}`)];
	for (const result of outcome.results) {
		const { run, figures, byWorker } = result;
		const perWorker = Object.entries(byWorker).map(([name, count]) => `${name} ${count}`).join(', ');
		lines.push(
			...rushFlowLines(figures, `[concurrency ${run.concurrency}] ${run.label}`, failuresOf(result)),
			`    ${figures.ordersPerRequest.toFixed(1)} orders per accepted POST; executions per worker: ${perWorker}; ` +
				`${(figures.orders / figures.wallSeconds).toFixed(1)} orders per second until all ended`,
		);
	}
	return lines;
}
