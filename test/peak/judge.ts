/**
 * The figures of one scenario run, each from its own source so that one can check another:
 * how often each order was queued comes from the double; how executions ended, and which order
 * each handled, from n8n's database; how long each POST took, from the shop's side.
 */
import type { ServiceDouble } from '../double/server';
import type { ExecutionOutcome } from './executions';
import type { Ledger } from './runner';
import type { PurposefulFailure, Scenario } from './scenarios';
import type { Variant } from './workflows';

export interface ScenarioFigures {
	letter: string;
	title: string;
	variant: Variant;
	orders: number;
	deliveries: number;
	/** From the first POST sent to the last (settling between rounds included), in seconds. */
	sendingSeconds: number;
	/** Orders the double queued more than once. */
	doubled: number;
	/** Orders the double never queued, after every delivery's execution ended. */
	lost: number;
	executions: number;
	/** Executions that did not end in success, or in which a node threw (even when its error output let the execution go on). */
	failed: number;
	/** Deliveries without an execution in n8n's database. */
	missing: number;
	/** Of the failed, those the strict example failed on purpose, with the reason (`FAILED_ON_PURPOSE`). */
	failedOnPurpose: number;
	/** The strict example's orders that did not fail on purpose where the scenario says (`Scenario.failsOnPurpose`), or failed there unasked. */
	misrouted: string[];
	/** Of the lost, those no execution failed for, saying the outcome is unknown: lost where no user looks. */
	lostSilently: number;
	/** POSTs n8n did not answer with 200. */
	webhookProblems: number;
	/** Orders whose executions (by the order their webhook received) differ in number from their deliveries. */
	unmatched: number;
	/**
	 * Orders queued other than once per delivery the double did not refuse: what a workflow
	 * without the key must show, so only meaningful for that one (a check of the judge itself).
	 */
	offPlainExpectation: number;
	webhookMs: { p50: number; p95: number };
	/** Every POST's time to n8n's answer, for percentiles over several runs. */
	latenciesMs: number[];
	/** Requests the double received at POST transactions during the run, by status. */
	doubleRequests: { total: number; byStatus: Record<string, number> };
	/** The first few reasons of failed executions, webhook problems and lost orders (what their executions said). */
	reasons: string[];
	/** Queue mode: executions each worker ran, and orders whose executions ran on different workers. */
	byWorker?: Record<string, number>;
	ordersAcrossWorkers?: number;
}

/** Nearest-rank percentile of `values` (milliseconds). */
export function percentile(values: number[], fraction: number): number {
	if (values.length === 0) return Number.NaN;
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

/** The strict example's nodes that fail an execution on purpose, naming why: an order whose outcome is unknown, and one not queued or refused. */
export const FAILED_ON_PURPOSE: Record<PurposefulFailure, string> = { unknown: 'Check in the Platform', notQueued: 'Not Queued' };

const onPurpose = (nodeError: string) => Object.values(FAILED_ON_PURPOSE).some((node) => nodeError.startsWith(`${node}: `));
const saysUnknown = (nodeError: string) => nodeError.startsWith(`${FAILED_ON_PURPOSE.unknown}: `);

/**
 * Orders whose executions failed on purpose at other nodes than `scenario.failsOnPurpose` says,
 * with the nodes they failed at; a failure whose message does not begin with the order, as the
 * example writes it, counts as at no node (n8n swaps a Stop and Error message naming a network
 * code, such as ECONNRESET, for a generic one).
 */
function misroutedOrders(scenario: Scenario, orderIds: string[], outcomes: ExecutionOutcome[]): string[] {
	const expected = scenario.failsOnPurpose;
	if (expected === undefined) return [];
	const expectedAt = (id: string) => (Object.keys(expected) as PurposefulFailure[]).filter((kind) => expected[kind].some((index) => orderIds[index] === id)).map((kind) => FAILED_ON_PURPOSE[kind]);
	return orderIds.flatMap((id) => {
		const namesOrder = (error: string) => error.slice(error.indexOf(': ') + 2).startsWith(`Order ${id}`);
		const failedAt = outcomes.filter((outcome) => outcome.orderId === id).flatMap((outcome) => outcome.nodeErrors.filter((error) => onPurpose(error) && namesOrder(error)).map((error) => error.slice(0, error.indexOf(': '))));
		const want = expectedAt(id);
		return want.sort().join() === [...new Set(failedAt)].sort().join() ? [] : [`${id}: failed at ${failedAt.join(', ') || 'no node'} instead of ${want.join(', ') || 'none'}`];
	});
}

function tally<T>(values: T[]): Map<T, number> {
	const counts = new Map<T, number>();
	for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
	return counts;
}

export function judge(input: {
	scenario: Scenario;
	variant: Variant;
	ledger: Ledger;
	outcomes: ExecutionOutcome[];
	double: ServiceDouble;
	ranOn?: Map<string, string[]>;
}): ScenarioFigures {
	const { scenario, variant, ledger, outcomes, double, ranOn } = input;
	const ours = new Set(ledger.orderIds);
	const queued = tally(double.transactions.queuedOrderIds().filter((id): id is string => id !== undefined && ours.has(id)));
	const timesQueued = (id: string) => queued.get(id) ?? 0;
	const handled = tally(outcomes.map((outcome) => outcome.orderId));

	const failedOutcomes = outcomes.filter((outcome) => outcome.status !== 'success' || outcome.nodeErrors.length > 0);
	const problems = ledger.deliveries.filter((delivery) => delivery.problem !== undefined);
	const lostIds = ledger.orderIds.filter((id) => timesQueued(id) === 0);
	const lostNotes = outcomes
		.filter((outcome) => outcome.orderId !== undefined && lostIds.includes(outcome.orderId))
		.map((outcome) => `lost ${outcome.orderId}, execution ${outcome.id}: ${outcome.itemNotes.join('; ') || 'no item skipped or failed'}`);
	const reasons = [
		...failedOutcomes.map((outcome) => `execution ${outcome.id} (${outcome.orderId ?? 'order unknown'}) ${outcome.status}: ${outcome.nodeErrors.join('; ')}`),
		...problems.map((delivery) => `POST of ${delivery.orderId}: ${delivery.problem}`),
		...lostNotes,
	];

	const requests = double.requests.slice(ledger.firstRequest).filter((request) => request.rawPath.startsWith('transactions'));
	const byStatus = Object.fromEntries(tally(requests.map((request) => String(request.status))));

	const latencies = ledger.deliveries.map((delivery) => delivery.latencyMs);
	const sentAt = ledger.deliveries.map((delivery) => delivery.sentAtMs);
	const figures: ScenarioFigures = {
		letter: scenario.letter,
		title: scenario.title,
		variant,
		orders: ledger.orderIds.length,
		deliveries: ledger.deliveries.length,
		sendingSeconds: (Math.max(...sentAt) - Math.min(...sentAt)) / 1000,
		doubled: ledger.orderIds.filter((id) => timesQueued(id) > 1).length,
		lost: lostIds.length,
		executions: outcomes.length,
		failed: failedOutcomes.length,
		missing: Math.max(0, ledger.deliveries.length - outcomes.length),
		failedOnPurpose: failedOutcomes.filter((outcome) => outcome.nodeErrors.length > 0 && outcome.nodeErrors.every(onPurpose)).length,
		misrouted: variant === 'strict' ? misroutedOrders(scenario, ledger.orderIds, outcomes) : [],
		lostSilently: lostIds.filter((id) => !outcomes.some((outcome) => outcome.orderId === id && outcome.nodeErrors.some(saysUnknown))).length,
		webhookProblems: problems.length,
		unmatched: ledger.orderIds.filter((id) => (handled.get(id) ?? 0) !== ledger.deliveriesOf.get(id)).length,
		offPlainExpectation: ledger.orderIds.filter((id) => timesQueued(id) !== (ledger.deliveriesOf.get(id) ?? 0) - (ledger.refusedOf.get(id) ?? 0)).length,
		webhookMs: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95) },
		latenciesMs: latencies,
		doubleRequests: { total: requests.length, byStatus },
		reasons: reasons.slice(0, 8),
	};
	if (ranOn !== undefined) {
		const workerOf = (id: string) => ranOn.get(id)?.join('+') ?? 'unknown';
		figures.byWorker = Object.fromEntries(tally(outcomes.map((outcome) => workerOf(outcome.id))));
		const workersPerOrder = new Map<string, Set<string>>();
		for (const outcome of outcomes) {
			if (outcome.orderId === undefined) continue;
			workersPerOrder.set(outcome.orderId, (workersPerOrder.get(outcome.orderId) ?? new Set()).add(workerOf(outcome.id)));
		}
		figures.ordersAcrossWorkers = [...workersPerOrder.values()].filter((workers) => workers.size > 1).length;
	}
	return figures;
}

/**
 * Whether a run sent every order exactly once with nothing failed: what the key and the strict
 * arrangement must show. The strict arrangement fails an execution on purpose where the service
 * did not queue its order, naming the reason, as its example says: no other failure counts as one.
 */
export function sentEachOnce(figures: ScenarioFigures): boolean {
	const failedOnPurpose = figures.variant === 'strict' ? figures.failedOnPurpose : 0;
	return figures.doubled === 0 && figures.lost === 0 && figures.failed === failedOnPurpose && figures.missing === 0 && figures.webhookProblems === 0;
}

/**
 * Whether the workflow without the key behaved as it must (each order queued once per
 * delivery not refused, no failures, one execution per delivery): the proof that the counting
 * above sees what happened.
 */
export function plainAsExpected(figures: ScenarioFigures): boolean {
	return figures.offPlainExpectation === 0 && figures.unmatched === 0 && figures.failed === 0 && figures.missing === 0 && figures.webhookProblems === 0;
}
