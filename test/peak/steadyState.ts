/**
 * The keyed flow at a shop's steady state: its key history already full at the default size,
 * as after some weeks of orders, so that every execution reads and rewrites the whole row.
 * The history is filled by the node itself (batches of orders through a second webhook into the
 * same Create node), then orders arrive one per webhook call, keyed Create beside the HTTP
 * Request node, in rounds alternating which goes first. No budget: this measures n8n's side.
 */
import { performance } from 'node:perf_hooks';

import type { ServiceDouble } from '../double/server';
import { atOnce, deliverPlan, shopOrders, type ShopOrder } from './delivery';
import { type ExecutionStore, waitUntilEnded } from './executions';
import { executionsOf, queuedTimes } from './rush';
import { type RushSettings, STEADY_P50_RATIO_GOAL } from './rushSettings';
import { batchBody, type RushWorkflow, type SteadyFlow } from './rushWorkflows';

const ROUNDS = 5;
const WARM_UP_ORDERS = 5;
const SETTLE_LIMIT_MS = 10 * 60_000;

export interface SteadyEnvironment {
	double: ServiceDouble;
	store: ExecutionStore;
	webhookBase: string;
	/** Entries in the keyed node's history row of n8n's store, as n8n saved it. */
	historyEntries(workflowId: string): Promise<number>;
}

export interface SteadyFigures {
	fillOrders: number;
	fillSeconds: number;
	historyEntries: number;
	orders: number;
	executionMs: Record<SteadyFlow, { p50: number; p95: number }>;
	/** What went wrong: orders not queued exactly once, executions that failed, POSTs not answered 200. */
	problems: string[];
}

type Workflows = [RushWorkflow<'steadyKeyed'>, RushWorkflow<'steadyHttpRequest'>];

/** Delivers the fill batches one after another, each execution ended before the next. */
async function fillHistory(environment: SteadyEnvironment, keyed: RushWorkflow<'steadyKeyed'>, settings: RushSettings): Promise<ShopOrder[]> {
	const orders = shopOrders('FILL', settings.steadyFillOrders);
	const url = `${environment.webhookBase}/${keyed.fillPath}`;
	for (let start = 0, batch = 1; start < orders.length; start += settings.steadyFillBatch, batch++) {
		const body = batchBody(orders.slice(start, start + settings.steadyFillBatch));
		const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
		if (response.status !== 200) throw new Error(`Filling the key history: batch ${batch} was answered HTTP ${response.status}`);
		await waitUntilEnded(environment.store, keyed.file.id, batch, SETTLE_LIMIT_MS);
	}
	return orders;
}

export async function measureSteadyState(environment: SteadyEnvironment, workflows: Workflows, settings: RushSettings): Promise<SteadyFigures> {
	const { double, store } = environment;
	double.budget = undefined;
	double.faults.reset();
	const [keyed] = workflows;
	const problems: string[] = [];

	const fillStarted = performance.now();
	const filled = await fillHistory(environment, keyed, settings);
	const fillSeconds = (performance.now() - fillStarted) / 1000;
	const fillQueued = queuedTimes(double, filled);
	if (fillQueued.once !== filled.length) problems.push(`filling: ${filled.length - fillQueued.once} of ${filled.length} orders not queued exactly once`);
	const historyEntries = await environment.historyEntries(keyed.file.id);

	const delivered = new Map<SteadyFlow, ShopOrder[]>([
		['steadyKeyed', []],
		['steadyHttpRequest', []],
	]);
	const executions = async (workflow: Workflows[number]) => (await store.list(workflow.file.id)).length;
	for (const workflow of workflows) {
		const before = await executions(workflow);
		const warm = shopOrders(`SW-${workflow.flow}`, WARM_UP_ORDERS);
		await deliverPlan(`${environment.webhookBase}/${workflow.webhookPath}`, atOnce(warm));
		await waitUntilEnded(store, workflow.file.id, before + WARM_UP_ORDERS, SETTLE_LIMIT_MS);
	}
	const perRound = Math.ceil(settings.steadyOrders / ROUNDS);
	const interval = 1000 / settings.steadyOrdersPerSecond;
	for (let round = 0; round < ROUNDS; round++) {
		for (const workflow of round % 2 === 0 ? workflows : [...workflows].reverse()) {
			const orders = shopOrders(`STEADY-${workflow.flow}-${round + 1}`, perRound);
			const before = await executions(workflow);
			const deliveries = await deliverPlan(`${environment.webhookBase}/${workflow.webhookPath}`, orders.map((order, index) => ({ atMs: index * interval, order })));
			await waitUntilEnded(store, workflow.file.id, before + orders.length, SETTLE_LIMIT_MS);
			delivered.get(workflow.flow)?.push(...orders);
			problems.push(...deliveries.filter((delivery) => delivery.problem !== undefined).map((delivery) => `POST of ${delivery.orderId}: ${delivery.problem}`));
		}
	}

	const executionMs = {} as SteadyFigures['executionMs'];
	for (const workflow of workflows) {
		const orders = delivered.get(workflow.flow) ?? [];
		const queued = queuedTimes(double, orders);
		if (queued.once !== orders.length) problems.push(`${workflow.flow}: ${orders.length - queued.once} of ${orders.length} orders not queued exactly once, e.g. ${queued.neverIds[0] ?? '(doubled)'}`);
		const measured = await executionsOf(store, workflow, orders);
		if (measured.failed.length > 0) problems.push(`${workflow.flow}: ${measured.failed.length} executions failed, e.g. ${measured.failed[0].id}: ${measured.failed[0].nodeErrors.join('; ').slice(0, 200)}`);
		executionMs[workflow.flow] = measured.executionMs;
	}
	return { fillOrders: filled.length, fillSeconds, historyEntries, orders: perRound * ROUNDS, executionMs, problems: problems.slice(0, 8) };
}

export function describeSteadyState(figures: SteadyFigures, settings: RushSettings): { lines: string[]; passed: boolean } {
	const { steadyKeyed, steadyHttpRequest } = figures.executionMs;
	const ratio = steadyKeyed.p50 / steadyHttpRequest.p50;
	const ms = (value: number) => `${Math.round(value)} ms`;
	const lines = [
		`Steady state: the keyed flow with its history full (${figures.fillOrders.toLocaleString('en-US')} orders delivered first in batches of ${settings.steadyFillBatch.toLocaleString('en-US')}, ${figures.fillSeconds.toFixed(0)} s; the history row holds ${figures.historyEntries.toLocaleString('en-US')} entries), then ${figures.orders} orders per flow at ${settings.steadyOrdersPerSecond} per second in ${ROUNDS} alternating rounds, no budget; execution time (n8n's startedAt to stoppedAt):`,
		`  Create with the key, history full: p50 ${ms(steadyKeyed.p50)}, p95 ${ms(steadyKeyed.p95)}`,
		`  HTTP Request node, the same POST: p50 ${ms(steadyHttpRequest.p50)}, p95 ${ms(steadyHttpRequest.p95)}`,
		`  keyed / HTTP Request node, p50: ${ratio.toFixed(1)} (goal at most ${STEADY_P50_RATIO_GOAL}: ${ratio <= STEADY_P50_RATIO_GOAL ? 'met' : 'missed'}; printed, not judged)`,
		...figures.problems.map((problem) => `  ${problem}`),
	];
	return { lines, passed: figures.problems.length === 0 };
}
