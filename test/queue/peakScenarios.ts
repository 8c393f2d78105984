/**
 * Check 4: orders arriving together, with executions on two workers. test:peak's scenarios
 * run on fresh workflows: (s), (a), (b) and (d) with the order id as Deduplication Key, whose
 * history is one row in Postgres that every execution reads and writes whole, and issue 42's
 * (q) and (l) (sequentialScenarios.ts); (a), (b), (d) and (u) on the strict arrangement of
 * examples/, a Redis counter in front of Create.
 * Asserted, as the README promises in queue mode: an order delivered again after its first
 * execution ended is sent once (s, q, l); with the key no execution fails and no order is lost where
 * nothing was refused (a, b); the strict arrangement sends every order exactly once, its only
 * failed executions those it fails on purpose, except in (d), where it carries the key's named limit
 * too, an order lost only where an execution failed saying its outcome is unknown; in (u) a refused
 * order fails at the example's Not Queued and one of unknown outcome at Check in the Platform. Measured,
 * not asserted: the limits the README names, orders the key sent twice and refused orders lost
 * in (d) when another worker's stale write brought their released key back.
 */
import { performance } from 'node:perf_hooks';

import type { CredentialToImport } from '../../scripts/n8n';
import type { ServiceDouble } from '../double/server';
import { sentEachOnce, type ScenarioFigures } from '../peak/judge';
import { publishWorkflows } from '../peak/publish';
import { runScenario, type RunnerEnvironment } from '../peak/runner';
import { distinctThenAgain, oneAfterTheOther, refusedThenHealthy, refusedThenUnknown, type Scenario, twiceAtOnce } from '../peak/scenarios';
import { scenarioWorkflow, type ScenarioWorkflow, type Variant } from '../peak/workflows';
import { type N8nInstance, waitUntilPublished } from './cluster';
import { workersOf } from './orders';
import { postgresExecutions } from './postgresExecutions';
import { SENT_ONCE_PROMISED, sequentialAcrossWorkers, sequentialOnLoadedMachine } from './sequentialScenarios';

/** The Redis database the example's counters and records are in, apart from n8n's queue in 0. */
export const ORDER_COUNTER_DATABASE = 1;

/** The example's Redis credential, pointed at the run's Redis. */
export function orderCounterCredential(redisPort: number): CredentialToImport {
	return {
		id: 'mpExampleRedis01',
		name: 'Redis (order counters)',
		type: 'redis',
		data: { host: '127.0.0.1', port: redisPort, database: ORDER_COUNTER_DATABASE, password: '', user: '', ssl: false },
	};
}

const RUNS: Array<{ scenario: Scenario; variants: Variant[] }> = [
	{ scenario: oneAfterTheOther, variants: ['keyed'] },
	{ scenario: sequentialAcrossWorkers, variants: ['keyed'] },
	{ scenario: sequentialOnLoadedMachine, variants: ['keyed'] },
	{ scenario: distinctThenAgain, variants: ['keyed', 'strict'] },
	{ scenario: twiceAtOnce, variants: ['strict', 'keyed'] },
	{ scenario: refusedThenHealthy, variants: ['keyed', 'strict'] },
	{ scenario: refusedThenUnknown, variants: ['strict'] },
];

export interface PeakRun {
	scenario: Scenario;
	variant: Variant;
	workflow: ScenarioWorkflow;
}

/** One fresh workflow per scenario and variant, to be imported with the others. */
export function peakRuns(credential: { id: string; name: string }): PeakRun[] {
	return RUNS.flatMap(({ scenario, variants }) => variants.map((variant) => ({ scenario, variant, workflow: scenarioWorkflow(variant, scenario.letter, credential) })));
}

export interface PeakContext {
	double: ServiceDouble;
	postgresPort: number;
	/** The main instance now (it is restarted before this check). */
	main: () => N8nInstance;
	workers: N8nInstance[];
}

/**
 * Publishes the runs' workflows on the running main instance and runs each; `onFigures` gets
 * each run's figures as they come, with the seconds it took: deliveries, executions and reading their outcomes.
 */
export async function runPeakScenarios(context: PeakContext, runs: PeakRun[], onFigures: (figures: ScenarioFigures, seconds: number) => void): Promise<void> {
	await publishWorkflows(context.main().port, runs.map((run) => run.workflow.file.id));
	await waitUntilPublished(context.postgresPort);
	const environment: RunnerEnvironment = {
		double: context.double,
		store: postgresExecutions(context.postgresPort),
		webhookBase: () => `http://127.0.0.1:${context.main().port}/webhook`,
		ranOn: async (ids) => await workersOf(context.workers, ids),
	};
	for (const { scenario, variant, workflow } of runs) {
		const started = performance.now();
		const figures = await runScenario(environment, scenario, variant, workflow);
		onFigures(figures, (performance.now() - started) / 1000);
	}
}

/** With the key on two workers, a refused order can be lost only where the service refused some: (d). */
const lossIsTheNamedLimit = (figures: ScenarioFigures) => figures.letter === refusedThenHealthy.letter;

/** What the check promises; returns what broke it, empty when nothing did. */
export function peakFailures(runs: ScenarioFigures[]): string[] {
	return runs
		.filter((figures) => {
			// The strict example has the key too: in (d) it may lose an order to the key's named limit, but only where an execution failed saying its outcome is unknown.
			if (figures.variant === 'strict') return !sentEachOnce(lossIsTheNamedLimit(figures) ? { ...figures, lost: figures.lostSilently } : figures) || figures.misrouted.length > 0;
			if (SENT_ONCE_PROMISED.has(figures.letter)) return !sentEachOnce(figures);
			const lost = lossIsTheNamedLimit(figures) ? 0 : figures.lost;
			return lost > 0 || figures.failed > 0 || figures.missing > 0 || figures.webhookProblems > 0;
		})
		.map(({ letter, variant, doubled, lost, failed, misrouted }) => `(${letter}) ${variant}: doubled ${doubled}, lost ${lost}, failed executions ${failed}${misrouted.length > 0 ? `, misrouted ${misrouted.join('; ')}` : ''}`);
}

/** The README's named limits of the key across workers, as this run measured them: printed, not asserted. */
export function keyLimitsMeasured(runs: ScenarioFigures[]): string {
	const keyed = runs.filter((figures) => figures.variant === 'keyed' && !SENT_ONCE_PROMISED.has(figures.letter));
	const doubled = keyed.map((figures) => `(${figures.letter}) ${figures.doubled} of ${figures.orders}`).join(', ');
	const lost = keyed.filter(lossIsTheNamedLimit).map((figures) => `(${figures.letter}) ${figures.lost} of ${figures.orders}`).join(', ');
	return `the key's limits across two workers (README, Sending Safely), measured in this run, not asserted: sent twice ${doubled}; refused orders lost to a released key brought back ${lost}`;
}
