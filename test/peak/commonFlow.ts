/**
 * What one order per webhook call costs n8n through Transaction › Create, against the same POST
 * through n8n's HTTP Request node: the CPU of n8n's process group, read from /proc around
 * rounds of orders delivered at 20 per second, one flow per round and the flows' order reversed
 * every round, so that the machine's drift falls on all three alike. A round ends when all its
 * executions have ended and n8n has had a moment to finish what follows them. It prints each
 * flow's execution p50 too (n8n's startedAt to stoppedAt, warm-up left out): a wait on the way of
 * an execution costs n8n's concurrency slots.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import type { ServiceDouble } from '../double/server';
import { deliverPlan, shopOrders } from './delivery';
import { type ExecutionStore, waitUntilEnded } from './executions';
import { COMMON_FLOW_LABELS, COMMON_FLOWS, type CommonFlow, type CommonFlowWorkflow } from './commonFlowWorkflows';
import { percentile } from './judge';
import { processGroupCpuMs } from './processGroupCpu';

const ORDERS_PER_ROUND = 40;
const ROUNDS = 5;
const WARM_UP_ORDERS = 20;
const INTERVAL_MS = 50;
const SETTLE_LIMIT_MS = 2 * 60_000;
/** After a round's executions ended: n8n saves and cleans up after an execution. */
const AFTERMATH_MS = 1_000;
/** The regression net: Create may cost at most this much more than the HTTP Request node. */
export const COMMON_FLOW_LIMIT = 1.25;

export interface CommonFlowFigures {
	orders: number;
	/** CPU of n8n's process group per order, by flow, in milliseconds. */
	cpuPerOrderMs: Record<CommonFlow, number>;
	/** Execution p50 of the measured rounds, by flow, in milliseconds. */
	executionP50Ms: Record<CommonFlow, number>;
	/** What went wrong: orders not queued exactly once, executions not successful, POSTs not answered 200. */
	problems: string[];
}

export interface CommonFlowEnvironment {
	double: ServiceDouble;
	store: ExecutionStore;
	webhookBase: string;
	/** The process group of `n8n start`. */
	n8nGroup: number;
}

export async function measureCommonFlow(environment: CommonFlowEnvironment, workflows: CommonFlowWorkflow[]): Promise<CommonFlowFigures> {
	const { double, store } = environment;
	const delivered = new Map<CommonFlow, string[]>(COMMON_FLOWS.map((flow) => [flow, []]));
	const problems: string[] = [];
	const round = async (workflow: CommonFlowWorkflow, count: number): Promise<number> => {
		const orders = shopOrders(`CF-${workflow.flow}-${delivered.get(workflow.flow)?.length ?? 0}`, count);
		const cpuBefore = processGroupCpuMs(environment.n8nGroup);
		const plan = orders.map((order, index) => ({ atMs: index * INTERVAL_MS, order }));
		const deliveries = await deliverPlan(`${environment.webhookBase}/${workflow.webhookPath}`, plan);
		delivered.get(workflow.flow)?.push(...orders.map((order) => order.id));
		await waitUntilEnded(store, workflow.file.id, delivered.get(workflow.flow)?.length ?? 0, SETTLE_LIMIT_MS);
		await sleep(AFTERMATH_MS);
		problems.push(...deliveries.filter((delivery) => delivery.problem !== undefined).map((delivery) => `POST of ${delivery.orderId}: ${delivery.problem}`));
		return processGroupCpuMs(environment.n8nGroup) - cpuBefore;
	};

	for (const workflow of workflows) await round(workflow, WARM_UP_ORDERS);
	const warmUps = new Map(await Promise.all(workflows.map(async (workflow) => [workflow.flow, new Set((await store.durationsMs(workflow.file.id)).keys())] as const)));
	const cpuMs = Object.fromEntries(COMMON_FLOWS.map((flow) => [flow, 0])) as Record<CommonFlow, number>;
	for (let index = 0; index < ROUNDS; index++) {
		for (const workflow of index % 2 === 0 ? workflows : [...workflows].reverse()) cpuMs[workflow.flow] += await round(workflow, ORDERS_PER_ROUND);
	}

	const queued = new Map<string, number>();
	for (const id of double.transactions.queuedOrderIds()) if (id !== undefined) queued.set(id, (queued.get(id) ?? 0) + 1);
	for (const workflow of workflows) {
		const ids = delivered.get(workflow.flow) ?? [];
		const notOnce = ids.filter((id) => queued.get(id) !== 1);
		if (notOnce.length > 0) problems.push(`${COMMON_FLOW_LABELS[workflow.flow]}: ${notOnce.length} orders not queued exactly once, e.g. ${notOnce[0]}`);
		const unsuccessful = (await store.list(workflow.file.id)).filter((row) => row.status !== 'success');
		if (unsuccessful.length > 0) problems.push(`${COMMON_FLOW_LABELS[workflow.flow]}: ${unsuccessful.length} executions not successful, e.g. ${unsuccessful[0].id}`);
	}
	const orders = ROUNDS * ORDERS_PER_ROUND;
	const cpuPerOrderMs = Object.fromEntries(COMMON_FLOWS.map((flow) => [flow, cpuMs[flow] / orders])) as Record<CommonFlow, number>;
	const executionP50Ms = Object.fromEntries(COMMON_FLOWS.map((flow) => [flow, Number.NaN])) as Record<CommonFlow, number>;
	for (const workflow of workflows) {
		const measured = [...(await store.durationsMs(workflow.file.id))].filter(([id]) => !warmUps.get(workflow.flow)?.has(id)).map(([, ms]) => ms);
		executionP50Ms[workflow.flow] = percentile(measured, 0.5);
	}
	return { orders, cpuPerOrderMs, executionP50Ms, problems: problems.slice(0, 8) };
}

/** Create's CPU per order over the HTTP Request node's, unkeyed and keyed. */
export function commonFlowRatios(figures: CommonFlowFigures): { create: number; createKeyed: number } {
	const { create, createKeyed, httpRequest } = figures.cpuPerOrderMs;
	return { create: create / httpRequest, createKeyed: createKeyed / httpRequest };
}

/** The figures as lines; passes when nothing went wrong and both Create flows stay within the limit. */
export function describeCommonFlow(figures: CommonFlowFigures): { lines: string[]; passed: boolean } {
	const ratios = commonFlowRatios(figures);
	const within = ratios.create <= COMMON_FLOW_LIMIT && ratios.createKeyed <= COMMON_FLOW_LIMIT;
	const lines = [
		`Common flow: one order per webhook call, ${figures.orders} orders per workflow at 20 per second in ${ROUNDS} rounds alternating (after ${WARM_UP_ORDERS} each to warm up); CPU of n8n's process group (/proc) per order:`,
		...COMMON_FLOWS.map((flow) => `  ${COMMON_FLOW_LABELS[flow]}: ${figures.cpuPerOrderMs[flow].toFixed(1)} ms; execution p50 ${figures.executionP50Ms[flow].toFixed(0)} ms`),
		`  Create / HTTP Request node: ${ratios.create.toFixed(2)}; with the key / HTTP Request node: ${ratios.createKeyed.toFixed(2)} (each at most ${COMMON_FLOW_LIMIT}: ${within ? 'met' : 'MISSED'})`,
		...figures.problems.map((problem) => `  ${problem}`),
	];
	return { lines, passed: within && figures.problems.length === 0 };
}
