/**
 * The service down for longer than Max Wait Seconds, and the shop delivering each order once
 * (issue 57): keyed Create (On Error › Stop Workflow, Max Wait Seconds `maxWaitSeconds`) takes one
 * order per webhook call while the account answers every transaction request 503 for
 * `outageMs`, so that its executions fail, saying how many orders were not sent. Once the service
 * is back, every failed execution is retried as the executions list's Retry does (its retries
 * that fail again too, up to `RETRY_ROUNDS` rounds), nothing delivered again. Every order must be
 * queued exactly once.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { deliverPlan, shopOrders, untilWebhookServes } from './delivery';
import type { CrashEnvironment } from './crash';
import { readOutcomes, RETRY_ROUNDS, retryRounds, tally, waitUntilEnded } from './executions';
import { queuedTimes } from './rush';
import type { RushSettings } from './rushSettings';
import type { RushWorkflow } from './rushWorkflows';

const SETTLE_LIMIT_MS = 10 * 60_000;
/** More refusals than the outage's requests can take: the outage ends when they are reset. */
const REFUSALS = 1_000_000;

export type OutageEnvironment = Pick<CrashEnvironment, 'double' | 'webhookBase' | 'store' | 'retry'>;

export interface OutageFigures {
	orders: number;
	/** How the executions of the outage ended, and the orders queued during it. */
	endedAs: Record<string, number>;
	queuedDuringOutage: number;
	retries: { retried: number; refused: string[]; endedAs: Record<string, number> };
	queued: { once: number; twice: number; never: number; neverIds: string[] };
	/** Seconds from the outage's end to the last order queued. */
	secondsToLastQueued: number;
}

export async function measureOutage(environment: OutageEnvironment, workflow: RushWorkflow<'outage'>, settings: RushSettings['outage']): Promise<OutageFigures> {
	const { double } = environment;
	const url = `${environment.webhookBase}/${workflow.webhookPath}`;
	const workflowId = workflow.file.id;
	double.budget = undefined;
	double.faults.reset();
	const [probe] = shopOrders('OW', 1);
	await untilWebhookServes(url, probe);
	const before = await waitUntilEnded(environment.store(), workflowId, 1, SETTLE_LIMIT_MS);
	const lastBefore = Math.max(...before.map((row) => Number(row.id)));

	const orders = shopOrders('OUTAGE', settings.orders);
	double.faults.failNext(REFUSALS, 503, { match: 'transactions' });
	const outageEnds = Date.now() + settings.outageMs;
	await deliverPlan(url, orders.map((order, index) => ({ atMs: (index * 1000) / settings.ordersPerSecond, order })));
	const outageRows = await waitUntilEnded(environment.store(), workflowId, orders.length, SETTLE_LIMIT_MS, (row) => Number(row.id) > lastBefore);
	const queuedDuringOutage = queuedTimes(double, orders);
	await sleep(Math.max(0, outageEnds - Date.now()));
	double.faults.reset();
	const endedMs = performance.now();
	const firstRequest = double.requests.length;

	const outageIds = new Set(outageRows.map((row) => row.id));
	const { retried, refused } = await retryRounds(environment.store(), workflowId, {
		counted: (row) => Number(row.id) > lastBefore,
		due: (row) => row.status === 'error' || row.status === 'crashed',
		retry: environment.retry,
		limitMs: SETTLE_LIMIT_MS,
	});
	const lastQueuedMs = Math.max(endedMs, ...double.requests.slice(firstRequest).filter((request) => request.status === 200).map((request) => request.receivedAtMs));

	const outcomes = await readOutcomes(environment.store(), workflowId, 'Shop Order Webhook');
	return {
		orders: orders.length,
		endedAs: tally(outcomes.filter((outcome) => outageIds.has(outcome.id)).map((outcome) => outcome.status)),
		queuedDuringOutage: queuedDuringOutage.once + queuedDuringOutage.twice,
		retries: { retried: retried.size, refused, endedAs: tally(outcomes.filter((outcome) => Number(outcome.id) > lastBefore && !outageIds.has(outcome.id)).map((outcome) => outcome.status)) },
		queued: queuedTimes(double, orders),
		secondsToLastQueued: (lastQueuedMs - endedMs) / 1000,
	};
}

const statuses = (counts: Record<string, number>) => Object.entries(counts).map(([status, count]) => `${status} ${count}`).join(', ') || 'none';

/** The figures as lines, and the verdict: every order queued exactly once within 300 s of the outage's end, n8n refusing no retry. */
export function describeOutage(figures: OutageFigures, settings: RushSettings['outage']): { lines: string[]; passed: boolean } {
	const { queued, retries } = figures;
	const failures = [
		queued.twice > 0 ? `${queued.twice} orders queued twice` : '',
		queued.never > 0 ? `${queued.never} orders never queued` : '',
		retries.refused.length > 0 ? `n8n refused ${retries.refused.length} retries` : '',
		figures.secondsToLastQueued > 300 ? `the last order queued ${figures.secondsToLastQueued.toFixed(0)} s after the outage` : '',
	].filter(Boolean);
	return {
		lines: [
			`Outage, the shop delivering once: Create with the order id as Deduplication Key, On Error › Stop Workflow, Max Wait Seconds ${settings.maxWaitSeconds}; ${figures.orders} orders at ${settings.ordersPerSecond} per second while the service answers 503 for ${settings.outageMs / 1000} s; then every failed execution retried as n8n's Retry does (up to ${RETRY_ROUNDS} rounds), nothing delivered again:`,
			`  during the outage: executions ended ${statuses(figures.endedAs)}, orders queued ${figures.queuedDuringOutage}; retried ${retries.retried} (${statuses(retries.endedAs)}), refused by n8n ${retries.refused.length}`,
			`  queued once ${queued.once}, twice ${queued.twice}, never ${queued.never}${queued.never > 0 ? ` (e.g. ${queued.neverIds.slice(0, 3).join(', ')})` : ''}; the last ${figures.secondsToLastQueued.toFixed(0)} s after the outage's end: ${failures.length === 0 ? 'passed' : `FAILED (${failures.join(', ')})`}`,
			...retries.refused.slice(0, 3).map((reason) => `    ${reason}`),
		],
		passed: failures.length === 0,
	};
}
