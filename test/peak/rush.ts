/**
 * A shop's rush (issue 35): orders arriving one per webhook call far faster than the account's
 * request budget allows. Each flow runs alone against a fresh budget in the double, which holds
 * from a few orders that warm it up on (their requests count only among the refused and accepted
 * ones). Its figures come each from its own source: how often
 * each order was queued from the double, how executions ended and how long they ran from n8n's
 * database, POSTs accepted and refused from the double's record, CPU from /proc.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { RequestBudget } from '../double/budget';
import type { ServiceDouble } from '../double/server';
import { deliverPlan, type ShopOrder, shopOrders } from './delivery';
import { type ExecutionStore, readOutcomes, waitUntilEnded } from './executions';
import { percentile } from './judge';
import { processGroupCpuMs } from './processGroupCpu';
import type { RushSettings } from './rushSettings';
import type { RushWorkflow } from './rushWorkflows';

const WARM_UP_ORDERS = 5;
/** Long: without a shared sender each execution retries on its own, and two cores drain slowly. */
const SETTLE_LIMIT_MS = 10 * 60_000;
/** After the executions ended: n8n saves and cleans up after them. */
const AFTERMATH_MS = 1_000;
/** Between the requests before a flow, taken with no budget, and its warm-up: longer than the learned pace looks back. */
const QUIET_BEFORE_BUDGET_MS = 2_000;

export interface RushEnvironment {
	double: ServiceDouble;
	store: ExecutionStore;
	webhookBase: string;
	/** The process group of `n8n start`, for CPU per order; none in queue mode. */
	n8nGroup?: number;
}

export interface RushFigures {
	flow: string;
	orders: number;
	/** From the first POST to the last execution's end, in seconds. */
	wallSeconds: number;
	queuedOnce: number;
	/** Queued twice or more. */
	queuedTwice: number;
	queuedNever: number;
	executions: number;
	failed: number;
	/** Shop POSTs n8n did not answer 200. */
	webhookProblems: number;
	/** POST transactions the double answered, by outcome. */
	postsAccepted: number;
	postsRefused: number;
	postsOther: number;
	/** Requests of any route the double refused with 429 (the paced flow must have none), and those it accepted, the warm-up's included. */
	requestsRefused: number;
	requestsAccepted: number;
	/** When the refused requests arrived, in seconds after the rush's first request (the warm-up's are negative): first lessons come early, a pace too high later. */
	refusedAtSeconds: number[];
	executionMs: { p50: number; p95: number };
	/** Transactions of the rush's orders the double queued, per POST it accepted. */
	ordersPerRequest: number;
	/** The account's budget in requests per second, and the POSTs it accepted per second from the rush's first request to its last accepted POST. */
	budgetRate: number;
	acceptedPerSecond: number;
	/** n8n's ids of the executions that handled the rush's orders. */
	executionIds: string[];
	cpuPerOrderMs?: number;
	/** The first few reasons of failed executions, webhook problems and orders never queued. */
	reasons: string[];
}

/** Counts what the double queued of `orders`: exactly once, twice or more, never. */
export function queuedTimes(double: ServiceDouble, orders: ShopOrder[]): { once: number; twice: number; never: number; neverIds: string[] } {
	const counts = new Map(orders.map((order) => [order.id, 0]));
	for (const id of double.transactions.queuedOrderIds()) if (id !== undefined && counts.has(id)) counts.set(id, (counts.get(id) ?? 0) + 1);
	const values = [...counts.values()];
	const neverIds = [...counts].filter(([, times]) => times === 0).map(([id]) => id);
	return { once: values.filter((n) => n === 1).length, twice: values.filter((n) => n > 1).length, never: neverIds.length, neverIds };
}

/** What n8n recorded of the executions that handled `orders`: outcomes and run times. */
export async function executionsOf(store: ExecutionStore, workflow: RushWorkflow<string> | ReadonlyArray<RushWorkflow<string>>, orders: ShopOrder[]) {
	const ids = new Set(orders.map((order) => order.id));
	const fileIds = (Array.isArray(workflow) ? workflow : [workflow]).map((each: RushWorkflow<string>) => each.file.id);
	const read = await Promise.all(fileIds.map(async (id) => await readOutcomes(store, id, 'Shop Order Webhook')));
	const outcomes = read.flat().filter((outcome) => outcome.orderId !== undefined && ids.has(outcome.orderId));
	const durations = new Map((await Promise.all(fileIds.map(async (id) => [...(await store.durationsMs(id))]))).flat());
	const times = outcomes.map((outcome) => durations.get(outcome.id)).filter((ms): ms is number => ms !== undefined);
	const failed = outcomes.filter((outcome) => outcome.status !== 'success' || outcome.nodeErrors.length > 0);
	return { outcomes, failed, executionMs: { p50: percentile(times, 0.5), p95: percentile(times, 0.95) } };
}

/** Answered as a request the account refused for its rate: 429, or 503 where a flow's account answers so. */
const refusedForRate = (status: number) => status === 429 || status === 503;

export async function measureRushFlow(environment: RushEnvironment, workflow: RushWorkflow<string>, settings: RushSettings): Promise<RushFigures> {
	const { double, store } = environment;
	const workflows = [workflow, ...(workflow.companion === undefined ? [] : [workflow.companion])];
	/** Delivers `orders` at `interval` apart, alternating between the flow's workflows, and waits until each has `executions` ended. */
	const deliver = async (orders: ShopOrder[], intervalMs: number, executions: (share: number) => number) => {
		const deliveries = await Promise.all(
			workflows.map(async (each, index) => {
				const mine = orders.map((order, at) => ({ atMs: at * intervalMs, order })).filter((_, at) => at % workflows.length === index);
				return await deliverPlan(`${environment.webhookBase}/${each.webhookPath}`, mine);
			}),
		);
		for (const [index, each] of workflows.entries()) {
			await waitUntilEnded(store, each.file.id, executions(Math.ceil((orders.length - index) / workflows.length)), SETTLE_LIMIT_MS);
		}
		return deliveries.flat();
	};
	// The account's budget begins while the account is quiet and holds from the warm-up on, as a
	// real account's always does: one that began with the rush would show the node an account that
	// had just taken requests at any speed. Refusals are counted from the warm-up on.
	const budgetTimes = workflow.budgetTimes ?? 1;
	const budgetRate = budgetTimes * settings.budget.rate;
	double.budget = new RequestBudget({ ...settings.budget, rate: budgetRate, burst: budgetTimes * settings.budget.burst, ...workflow.refusal });
	double.faults.reset();
	await sleep(QUIET_BEFORE_BUDGET_MS);
	const firstWarmUpRequest = double.requests.length;
	const warmUp = shopOrders(`RW-${workflow.flow}`, WARM_UP_ORDERS * workflows.length);
	await deliver(warmUp, 0, () => WARM_UP_ORDERS);

	const orders = shopOrders(`RUSH-${workflow.flow}`, settings.orders);
	const firstRequest = double.requests.length;
	const cpuBefore = environment.n8nGroup === undefined ? 0 : processGroupCpuMs(environment.n8nGroup);
	const started = performance.now();
	const deliveries = await deliver(orders, 1000 / settings.ordersPerSecond, (share) => WARM_UP_ORDERS + share);
	const wallSeconds = (performance.now() - started) / 1000;
	await sleep(AFTERMATH_MS);
	const cpuMs = environment.n8nGroup === undefined ? undefined : processGroupCpuMs(environment.n8nGroup) - cpuBefore;
	double.budget = undefined;

	const requests = double.requests.slice(firstRequest);
	const withWarmUp = double.requests.slice(firstWarmUpRequest);
	const posts = requests.filter((request) => request.rawPath.startsWith('transactions'));
	const accepted = posts.filter((request) => request.status === 200);
	const queued = queuedTimes(double, orders);
	const orderIds = new Set(orders.map((order) => order.id));
	const transactionsQueued = double.transactions.queuedOrderIds().filter((id) => id !== undefined && orderIds.has(id)).length;
	const { outcomes, failed, executionMs } = await executionsOf(store, workflows, orders);
	const problems = deliveries.filter((delivery) => delivery.problem !== undefined);
	const reasons = [
		...failed.map((outcome) => `execution ${outcome.id} (${outcome.orderId ?? 'order unknown'}) ${outcome.status}: ${outcome.nodeErrors.join('; ')}`.slice(0, 300)),
		...problems.map((delivery) => `POST of ${delivery.orderId}: ${delivery.problem}`),
		...(outcomes.length < orders.length ? [`${orders.length - outcomes.length} orders without an execution in n8n's database`] : []),
	];
	return {
		flow: workflow.flow,
		orders: orders.length,
		wallSeconds,
		queuedOnce: queued.once,
		queuedTwice: queued.twice,
		queuedNever: queued.never,
		executions: outcomes.length,
		failed: failed.length,
		webhookProblems: problems.length,
		postsAccepted: posts.filter((request) => request.status === 200).length,
		postsRefused: posts.filter((request) => refusedForRate(request.status)).length,
		postsOther: posts.filter((request) => request.status !== 200 && !refusedForRate(request.status)).length,
		requestsRefused: withWarmUp.filter((request) => refusedForRate(request.status)).length,
		requestsAccepted: withWarmUp.filter((request) => request.status >= 200 && request.status < 300).length,
		refusedAtSeconds: withWarmUp.filter((request) => refusedForRate(request.status)).map((request) => (request.receivedAtMs - requests[0].receivedAtMs) / 1000),
		executionMs,
		ordersPerRequest: transactionsQueued / accepted.length,
		budgetRate,
		acceptedPerSecond: accepted.length / Math.max(1, (accepted.at(-1)?.receivedAtMs ?? 0) - requests[0].receivedAtMs) * 1000,
		executionIds: outcomes.map((outcome) => outcome.id),
		cpuPerOrderMs: cpuMs === undefined ? undefined : cpuMs / orders.length,
		reasons: reasons.slice(0, 5),
	};
}
