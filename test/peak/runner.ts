/**
 * Runs one scenario against one workflow: delivers its orders, applies and lifts its refusals
 * in the double, waits for n8n to finish, and keeps the ledger the judge needs (every delivery
 * with its latency, how often each order was delivered and how often while refused).
 */
import type { ServiceDouble } from '../double/server';
import { deliverPlan, type Delivery, shopOrders } from './delivery';
import { type ExecutionStore, readOutcomes, waitUntilEnded } from './executions';
import { judge, type ScenarioFigures } from './judge';
import type { Refusal, Scenario, ScenarioRun } from './scenarios';
import type { ScenarioWorkflow, Variant } from './workflows';

/** Long: on two busy cores with retries in (d), executions can take minutes to drain. */
const SETTLE_LIMIT_MS = 5 * 60_000;

export interface RunnerEnvironment {
	double: ServiceDouble;
	store: ExecutionStore;
	/** `http://127.0.0.1:<port>/webhook` of the n8n instance that serves webhooks now. */
	webhookBase(): string;
	/** Which worker(s) logged each execution as finished; queue mode only. */
	ranOn?(ids: string[]): Promise<Map<string, string[]>>;
}

export interface Ledger {
	orderIds: string[];
	deliveries: Delivery[];
	deliveriesOf: Map<string, number>;
	/** Deliveries made while the double refused that order (queued: false). */
	refusedOf: Map<string, number>;
	/** The double's requests during the run: from this index on. */
	firstRequest: number;
}

const increment = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);

export async function runScenario(environment: RunnerEnvironment, scenario: Scenario, variant: Variant, workflow: ScenarioWorkflow): Promise<ScenarioFigures> {
	const { double, store } = environment;
	double.faults.reset();
	const orders = shopOrders(`${scenario.letter.toUpperCase()}-${variant.toUpperCase()}`, scenario.orders);
	const ledger: Ledger = {
		orderIds: orders.map((order) => order.id),
		deliveries: [],
		deliveriesOf: new Map(),
		refusedOf: new Map(),
		firstRequest: double.requests.length,
	};
	const refused = new Set<string>();
	const run: ScenarioRun = {
		async deliver(plan) {
			for (const { order } of plan) {
				increment(ledger.deliveriesOf, order.id);
				if (refused.has(order.id)) increment(ledger.refusedOf, order.id);
			}
			ledger.deliveries.push(...(await deliverPlan(`${environment.webhookBase()}/${workflow.webhookPath}`, plan)));
		},
		async settle() {
			await waitUntilEnded(store, workflow.file.id, ledger.deliveries.length, SETTLE_LIMIT_MS);
		},
		refuse({ notQueued, transient503, answerLost = 0 }: Refusal) {
			for (const id of notQueued) double.faults.notQueuedOrders.add(id);
			for (const id of notQueued) refused.add(id);
			double.faults.failNext(transient503, 503, { match: 'transactions' });
			double.faults.dropNext(answerLost, { match: 'transactions', afterProcessing: true });
		},
		heal() {
			double.faults.reset();
			refused.clear();
		},
	};
	await scenario.drive(run, orders);
	double.faults.reset();
	const outcomes = await readOutcomes(store, workflow.file.id, workflow.webhookNode);
	const ranOn = await environment.ranOn?.(outcomes.map((outcome) => outcome.id));
	return judge({ scenario, variant, ledger, outcomes, double, ranOn });
}
