/**
 * n8n killed in the middle of a rush (issue 38): keyed Create takes one order per webhook call,
 * faster than the account's budget, whose 429 asks for a long pause, so that orders wait in the
 * account's sender; n8n is killed (SIGKILL, as an out-of-memory kill or a lost host does),
 * started again on the same database, and the shop delivers every order again. Keys are claimed
 * only as their request leaves, so an order that was waiting is sent by its redelivery; only
 * orders of requests under way at the kill may stay unknown. No order may be queued twice, and
 * no more may stay unsent than one request carried.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { RequestBudget } from '../double/budget';
import type { ServiceDouble } from '../double/server';
import { atOnce, deliverPlan, shopOrders, untilWebhookServes } from './delivery';
import { type ExecutionStore, readOutcomes, waitUntilEnded } from './executions';
import { queuedTimes } from './rush';
import type { RushSettings } from './rushSettings';
import type { RushWorkflow } from './rushWorkflows';

const WARM_UP_ORDERS = 5;
const SETTLE_LIMIT_MS = 10 * 60_000;

export interface CrashEnvironment {
	double: ServiceDouble;
	webhookBase: string;
	/** n8n's executions as the running n8n has them (read anew after the restart). */
	store(): ExecutionStore;
	/** Kills n8n's whole process group with SIGKILL. */
	kill(): Promise<void>;
	/** Starts n8n again on the same database and waits for its editor. */
	restart(): Promise<void>;
}

export interface CrashFigures {
	orders: number;
	/** Executions of the deliveries before the kill, and their status in n8n's database at the end. */
	takenBeforeKill: number;
	endedAs: Record<string, number>;
	/** POSTs to the service under way at the kill (their answers lost) and the orders they carried. */
	requestsUnderWay: number;
	ordersUnderWay: number;
	queued: { once: number; twice: number; never: number; neverIds: string[] };
	/** The most orders one accepted request carried. */
	largestRequest: number;
	redelivery: { executions: number; failed: number; reasons: string[] };
	restartSeconds: number;
}

function tally(values: string[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
	return counts;
}

export async function measureCrash(environment: CrashEnvironment, workflow: RushWorkflow<'crash'>, settings: RushSettings['crash']): Promise<CrashFigures> {
	const { double } = environment;
	const url = `${environment.webhookBase}/${workflow.webhookPath}`;
	double.budget = undefined;
	double.faults.reset();
	await deliverPlan(url, atOnce(shopOrders('CW', WARM_UP_ORDERS)));
	const warmedUp = await waitUntilEnded(environment.store(), workflow.file.id, WARM_UP_ORDERS, SETTLE_LIMIT_MS);
	const lastWarmUp = Math.max(...warmedUp.map((row) => Number(row.id)));

	const orders = shopOrders('CRASH', settings.orders);
	const interval = 1000 / settings.ordersPerSecond;
	const plan = orders.map((order, index) => ({ atMs: index * interval, order })).filter((delivery) => delivery.atMs < settings.killAfterMs);
	const firstRequest = double.requests.length;
	double.budget = new RequestBudget(settings.budget);
	const firstDeliveries = deliverPlan(url, plan);
	await sleep(settings.killAfterMs);
	await environment.kill();
	await firstDeliveries;
	const atKill = double.requests.length;

	const restartedAt = Date.now();
	await environment.restart();
	double.budget = undefined;
	await untilWebhookServes(url, shopOrders('CW-AFTER', 1)[0]); // its webhooks come up after its editor
	const restartSeconds = (Date.now() - restartedAt) / 1000;
	const store = environment.store();
	const before = await store.list(workflow.file.id);
	double.budget = new RequestBudget(settings.budget);
	await deliverPlan(url, orders.map((order, index) => ({ atMs: index * interval, order })));
	// Executions n8n had created but not started at the kill stay "new" for ever, and some it records only
	// after the restart, as crashed, with their ids of before the kill: only the redelivery's are waited for.
	const lastBefore = Math.max(...before.map((row) => Number(row.id)));
	const redelivery = (execution: { id: string }) => Number(execution.id) > lastBefore;
	await waitUntilEnded(store, workflow.file.id, orders.length, SETTLE_LIMIT_MS, redelivery);
	double.budget = undefined;

	const outcomes = await readOutcomes(store, workflow.file.id, 'Shop Order Webhook');
	// Every execution of the first deliveries (some without run data), also those n8n recorded only after the restart.
	const taken = outcomes.filter((outcome) => Number(outcome.id) > lastWarmUp && !redelivery(outcome) && outcome.orderId?.startsWith('CW-') !== true);
	const endedAs = tally(taken.map((outcome) => outcome.status));
	const redelivered = outcomes.filter(redelivery);
	const failed = redelivered.filter((outcome) => outcome.status !== 'success' || outcome.nodeErrors.length > 0);
	const posts = double.requests.slice(firstRequest).filter((request) => request.rawPath.startsWith('transactions'));
	const underWay = double.requests.slice(firstRequest, atKill).filter((request) => request.answerLost === true && request.rawPath.startsWith('transactions'));
	return {
		orders: orders.length,
		takenBeforeKill: taken.length,
		endedAs,
		requestsUnderWay: underWay.length,
		ordersUnderWay: underWay.reduce((sum, request) => sum + (request.orders?.length ?? 0), 0),
		queued: queuedTimes(double, orders),
		largestRequest: Math.max(0, ...posts.filter((request) => request.status === 200).map((request) => request.orders?.length ?? 0)),
		redelivery: {
			executions: redelivered.length,
			failed: failed.length,
			reasons: failed.slice(0, 3).map((outcome) => `execution ${outcome.id} (${outcome.orderId}) ${outcome.status}: ${outcome.nodeErrors.join('; ')}`.slice(0, 300)),
		},
		restartSeconds,
	};
}

/** The crash's figures as lines, and the verdict: no order twice, no more unsent than one request carried, no redelivery failed. */
export function describeCrash(figures: CrashFigures, settings: RushSettings['crash']): { lines: string[]; passed: boolean } {
	const { queued, redelivery } = figures;
	const failures = [
		queued.twice > 0 ? `${queued.twice} orders queued twice` : '',
		queued.never > figures.largestRequest ? `${queued.never} orders never queued, more than one request carried (${figures.largestRequest})` : '',
		redelivery.failed > 0 ? `${redelivery.failed} executions of the redelivery failed` : '',
	].filter(Boolean);
	const { rate, burst, retryAfter } = settings.budget;
	const lines = [
		`Crash mid-rush: Create with the order id as Deduplication Key, ${settings.orders} orders at ${settings.ordersPerSecond} per second, the account's budget ${rate} per second, burst ${burst}, 429 with Retry-After ${retryAfter}; ` +
			`n8n killed (SIGKILL) ${settings.killAfterMs / 1000} s in, started again (${figures.restartSeconds.toFixed(0)} s until its webhook served), then every order delivered again:`,
		`  taken by n8n before the kill ${figures.takenBeforeKill} (at the end ${Object.entries(figures.endedAs).map(([status, count]) => `${status} ${count}`).join(', ')}); ` +
			`requests under way at the kill ${figures.requestsUnderWay}, carrying ${figures.ordersUnderWay} orders`,
		`  queued once ${queued.once}, twice ${queued.twice}, never ${queued.never}${queued.never > 0 ? ` (e.g. ${queued.neverIds.slice(0, 3).join(', ')})` : ''}; ` +
			`the largest request carried ${figures.largestRequest}; executions of the redelivery ${redelivery.executions}, failed ${redelivery.failed}: ${failures.length === 0 ? 'passed' : `FAILED (${failures.join(', ')})`}`,
		...redelivery.reasons.map((reason) => `    ${reason}`),
	];
	return { lines, passed: failures.length === 0 };
}
