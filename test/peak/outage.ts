/**
 * The service down, or refusing every request, for longer than Max Wait Seconds, and the shop delivering each order once
 * (issue 57), through the README's setup as a user imports it: keyed Create (On Error › Stop
 * Workflow, Max Wait Seconds `maxWaitSeconds`) takes one order per webhook call while the account
 * answers every transaction request 503 for `outageMs`, so that its executions fail, saying how
 * many orders were not sent; examples/retry-orders-not-sent.json, published before the outage,
 * retries them every minute, nothing delivered again and no one acting. Every order must be
 * queued exactly once, the last within 300 s of the outage's end.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { deliverPlan, shopOrders, untilWebhookServes } from './delivery';
import type { CrashEnvironment } from './crash';
import { readOutcomes, tally, waitUntilEnded, whatBecameOf } from './executions';
import { queuedTimes } from './rush';
import type { RushSettings } from './rushSettings';
import type { OutageCause, RushWorkflow } from './rushWorkflows';
import { RETRY_EXAMPLE } from './retryExample';

const SETTLE_LIMIT_MS = 10 * 60_000;
/** More refusals than the outage's requests can take: the outage ends when they are reset. */
const REFUSALS = 1_000_000;

/** How long after the outage the orders may take to be queued: the example's minute, then the account's pace. */
const QUEUED_WITHIN_MS = 300_000;

export type OutageEnvironment = Pick<CrashEnvironment, 'double' | 'webhookBase' | 'store' | 'installRetry'>;

export interface OutageFigures {
	cause: OutageCause;
	orders: number;
	/** How the executions of the outage ended, and the orders queued during it. */
	endedAs: Record<string, number>;
	queuedDuringOutage: number;
	/** The executions n8n's retries made, by how they ended. */
	retries: { retried: number; orders: number; endedAs: Record<string, number> };
	queued: { once: number; twice: number; never: number; neverIds: string[] };
	/** Seconds from the outage's end to the last order queued. */
	secondsToLastQueued: number;
	/** What became of the first orders never queued, as n8n recorded their executions. */
	neverNotes: string[];
}

export async function measureOutage(environment: OutageEnvironment, workflow: RushWorkflow<OutageCause>, settings: RushSettings['outage']): Promise<OutageFigures> {
	const cause = workflow.flow;
	// Orders of their own: another outage's counters (150 s) would drop the same ids in queue mode.
	const prefix = settings.holdMs === undefined ? { unavailable: 'OUTAGE', unreachable: 'UNREACHABLE', refusing: 'REFUSED' }[cause] : 'SLOW';
	const { double } = environment;
	const url = `${environment.webhookBase}/${workflow.webhookPath}`;
	const workflowId = workflow.file.id;
	double.budget = undefined;
	double.faults.reset();
	const [probe] = shopOrders(`${prefix}-W`, 1);
	await untilWebhookServes(url, probe);
	const before = await waitUntilEnded(environment.store(), workflowId, 1, SETTLE_LIMIT_MS);
	const lastBefore = Math.max(...before.map((row) => Number(row.id)));
	await environment.installRetry(workflowId);

	const orders = shopOrders(prefix, settings.orders);
	if (cause === 'unreachable') await double.stopListening();
	else double.faults.failNext(REFUSALS, cause === 'unavailable' ? 503 : 429, { match: 'transactions', retryAfter: cause === 'refusing' ? '1' : undefined });
	const outageEnds = Date.now() + settings.outageMs;
	// The held requests took their refusal as they came, and get it once the hold ends.
	if (settings.holdMs !== undefined) setTimeout(double.faults.holdAnswers(), settings.holdMs);
	await deliverPlan(url, orders.map((order, index) => ({ atMs: (index * 1000) / settings.ordersPerSecond, order })));
	// The outage ends on time, whether or not its executions have: in queue mode the workers' concurrency runs them some at a time.
	await sleep(Math.max(0, outageEnds - Date.now()));
	if (cause === 'unreachable') await double.listenAgain();
	else double.faults.reset();
	const endedMs = performance.now();
	const firstRequest = double.requests.length;
	const queuedDuringOutage = queuedTimes(double, orders);
	// The shop's deliveries are the first executions after the probe: redeliveries come minutes later.
	const outageRows = (await waitUntilEnded(environment.store(), workflowId, orders.length, SETTLE_LIMIT_MS, (row) => Number(row.id) > lastBefore)).slice(0, orders.length);

	const outageIds = new Set(outageRows.map((row) => row.id));
	// No one acts: the example's retries run on their own; the scenario watches the service until every order is queued.
	while (queuedTimes(double, orders).never > 0 && performance.now() - endedMs < QUEUED_WITHIN_MS + 60_000) await sleep(1000);
	await waitUntilEnded(environment.store(), workflowId, 0, SETTLE_LIMIT_MS, (row) => Number(row.id) > lastBefore);
	const lastQueuedMs = Math.max(endedMs, ...double.requests.slice(firstRequest).filter((request) => request.status === 200).map((request) => request.receivedAtMs));

	const outcomes = await readOutcomes(environment.store(), workflowId, 'Shop Order Webhook');
	const retries = outcomes.filter((outcome) => Number(outcome.id) > lastBefore && !outageIds.has(outcome.id));
	const queued = queuedTimes(double, orders);
	return {
		cause,
		orders: orders.length,
		endedAs: tally(outcomes.filter((outcome) => outageIds.has(outcome.id)).map((outcome) => outcome.status)),
		queuedDuringOutage: queuedDuringOutage.once + queuedDuringOutage.twice,
		retries: { retried: retries.length, orders: new Set(retries.map((outcome) => outcome.orderId)).size, endedAs: tally(retries.map((outcome) => outcome.status)) },
		queued,
		secondsToLastQueued: (lastQueuedMs - endedMs) / 1000,
		neverNotes: queued.neverIds.slice(0, 3).map((id) => whatBecameOf(id, outcomes)),
	};
}

/** What the service does during the outage, as the report says it. */
export const OUTAGE_WORDS: Record<OutageCause, string> = {
	unavailable: 'answers 503',
	unreachable: 'refuses every connection',
	refusing: 'answers 429 (Retry-After: 1), a budget that carries none of the orders,',
};

const statuses = (counts: Record<string, number>) => Object.entries(counts).map(([status, count]) => `${status} ${count}`).join(', ') || 'none';

/** Regular mode's setup, as the README sets it up: what takes the orders, and what sends again what it did not send. */
const REGULAR_SETUP = { create: 'Create with the order id as Deduplication Key, On Error › Stop Workflow', sendsAgain: `the README's retry (${RETRY_EXAMPLE}, every minute)` };

/** The figures as lines, and the verdict: every order queued exactly once within 300 s of the outage's end. */
export function describeOutage(figures: OutageFigures, settings: RushSettings['outage'], setup: { create: string; sendsAgain: string } = REGULAR_SETUP): { lines: string[]; passed: boolean } {
	const { queued, retries } = figures;
	const failures = [
		queued.twice > 0 ? `${queued.twice} orders queued twice` : '',
		queued.never > 0 ? `${queued.never} orders never queued` : '',
		figures.secondsToLastQueued > QUEUED_WITHIN_MS / 1000 ? `the last order queued ${figures.secondsToLastQueued.toFixed(0)} s after the outage` : '',
	].filter(Boolean);
	return {
		lines: [
			`Outage, the shop delivering once: ${setup.create}, Max Wait Seconds ${settings.maxWaitSeconds}; ${figures.orders} orders at ${settings.ordersPerSecond} per second while the service ${OUTAGE_WORDS[figures.cause]} for ${settings.outageMs / 1000} s${settings.holdMs === undefined ? '' : `, holding every answer for its first ${settings.holdMs / 1000} s`}; ${setup.sendsAgain} published, nothing delivered again by the shop, no one acting:`,
			`  the shop's deliveries: executions ended ${statuses(figures.endedAs)}; orders queued during the outage ${figures.queuedDuringOutage}; executions after the shop's (retries, deliveries again) ${retries.retried} of ${retries.orders} orders (${statuses(retries.endedAs)})`,
			`  queued once ${queued.once}, twice ${queued.twice}, never ${queued.never}${queued.never > 0 ? ` (e.g. ${queued.neverIds.slice(0, 3).join(', ')})` : ''}; the last ${figures.secondsToLastQueued.toFixed(0)} s after the outage's end: ${failures.length === 0 ? 'passed' : `FAILED (${failures.join(', ')})`}`,
			...figures.neverNotes.map((note) => `    ${note}`),
		],
		passed: failures.length === 0,
	};
}
