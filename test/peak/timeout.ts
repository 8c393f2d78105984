/**
 * n8n's own cancellations in the middle of a rush (issue 47), and the shop delivering each order
 * once (issue 57): keyed Create takes one order per webhook call, faster than the account's
 * budget, in a workflow whose Settings › Timeout Workflow is shorter than the account's pause, so
 * that orders still wait in the account's sender when the timeout nears; meanwhile a
 * few running executions are stopped as the executions list's Stop does (n8n's REST API, as the
 * owner). Create stops waiting 5 s before the timeout, so that its execution fails rather
 * than be cancelled (n8n's retry of a cancelled execution runs nothing again). Nothing is
 * delivered again and no one acts: the README's retry (examples/retry-orders-not-sent.json),
 * published with the shop workflow, retries every minute what failed or crashed, never what was
 * cancelled or stopped by hand; once the rush's executions ended the budget is lifted. Then one
 * new order alone. A cancellation must leave nothing behind in the process: every order but those a
 * stop withheld is then queued exactly once, and the order alone is sent at once.
 */
import { setTimeout as sleep } from 'node:timers/promises';

import { seconds } from '../../nodes/MailingPlatform/helpers/numbers';
import { RequestBudget } from '../double/budget';
import { atOnce, deliverPlan, type ShopOrder, shopOrders, untilWebhookServes } from './delivery';
import type { CrashEnvironment } from './crash';
import { leftUnretried, readOutcomes, tally, waitUntilEnded, whileRetrying } from './executions';
import { percentile } from './judge';
import { RETRY_EXAMPLE } from './retryExample';
import { queuedTimes } from './rush';
import type { RushSettings } from './rushSettings';
import type { RushWorkflow } from './rushWorkflows';
import { SEND_NODE } from './rushWorkflows';

const WARM_UP_ORDERS = 5;
const SETTLE_LIMIT_MS = 10 * 60_000;
/** Between the retries' end and the order alone. */
const QUIET_BEFORE_ALONE_MS = 2_000;

/** The n8n the crash left (or the first, run alone), as the crash sees it, and its REST API. */
export interface TimeoutEnvironment extends Pick<CrashEnvironment, 'double' | 'webhookBase' | 'store' | 'installRetry'> {
	/** Signs in to n8n's REST API and answers how to stop running executions at once, as the executions list's Stop does (what n8n said to each stop it refused, by id). */
	executionStopper(): Promise<(ids: readonly string[]) => Promise<Map<string, string>>>;
}

export interface TimeoutFigures {
	orders: number;
	/** How the rush's executions ended in n8n's database. */
	rushEndedAs: Record<string, number>;
	/** Orders the double queued during the rush. */
	queuedInRush: number;
	/** How long after n8n started a rush's execution (and its timeout's count) Create started, at p50 and p95, in ms: a busy n8n's own work before Create. */
	createStartedAfterMs: { p50: number; p95: number };
	/**
	 * Running executions asked to stop through the REST API mid-rush: stops n8n took (and how those
	 * executions ended), executions that had ended before the stop reached them, and other refusals.
	 */
	stopped: { asked: number; took: number; endedAs: Record<string, number>; endedFirst: number; refused: string[] };
	/** The orders of the rush but those of executions a stop took, queued once, twice and never at the end; and the orders a stop withheld that were never queued. */
	queued: { once: number; twice: number; never: number; neverIds: string[] };
	withheldByStops: number;
	/** The example's retries of what failed, crashed or timed out: executions retried, how the retries ended, those left failed and not retried (with why), and retries of executions stopped by hand. */
	retries: { retried: number; endedAs: Record<string, number>; failedAtEnd: number; reasons: string[]; ofStopped: number };
	/** Once the retries ended, one new order alone: how its execution ended, how long it ran, and whether it was queued. */
	alone: { status: string; seconds: number; queued: boolean };
}

const plan = (orders: ShopOrder[], perSecond: number) => orders.map((order, index) => ({ atMs: (index * 1000) / perSecond, order }));

/** n8n's refusal to stop an execution that ended meanwhile (the workflow's timeout came first). */
const ENDED_BEFORE_STOP = /can be stopped and \d+ is currently/;

/** How often, and until how long after the rush's last order, the stop looks for running executions. */
const STOP_POLL_MS = 250;
const STOP_LOOKS_AFTER_RUSH_MS = 10_000;

/**
 * Stops the `stops` newest running executions from `stopAfterMs` on, before the workflow's
 * timeout would: the first moment any runs (a busy n8n may have only created them by then).
 */
async function stopMidRush(environment: TimeoutEnvironment, workflowId: string, settings: RushSettings['timeout']) {
	const [stop] = await Promise.all([environment.executionStopper(), sleep(settings.stopAfterMs)]);
	const lastLookMs = Date.now() + (settings.orders / settings.ordersPerSecond) * 1000 + STOP_LOOKS_AFTER_RUSH_MS;
	let running = (await environment.store().list(workflowId)).filter((row) => row.status === 'running');
	while (running.length === 0 && Date.now() < lastLookMs) {
		await sleep(STOP_POLL_MS);
		running = (await environment.store().list(workflowId)).filter((row) => row.status === 'running');
	}
	const asked = running.slice(-settings.stops).map((row) => row.id);
	const answers = await stop(asked);
	const refused = [...answers].filter(([, answer]) => !ENDED_BEFORE_STOP.test(answer)).map(([id, answer]) => `stop of execution ${id}: ${answer}`);
	return { asked: asked.length, endedFirst: answers.size - refused.length, refused, ids: asked.filter((id) => !answers.has(id)) };
}

/** How long n8n may take to store a stopped execution's run data after it ended: 2.41.1 marks it cancelled first. */
const STOPPED_DATA_LIMIT_MS = 30_000;

/** The orders of the stopped executions, once n8n has stored the webhook's output of each (or the limit passed). */
async function ordersOfStopped(environment: TimeoutEnvironment, workflowId: string, stoppedIds: ReadonlySet<string>): Promise<Set<string | undefined>> {
	const deadline = Date.now() + STOPPED_DATA_LIMIT_MS;
	for (;;) {
		const stopped = (await readOutcomes(environment.store(), workflowId, 'Shop Order Webhook')).filter((outcome) => stoppedIds.has(outcome.id));
		if (stopped.every((outcome) => outcome.orderId !== undefined) || Date.now() > deadline) return new Set(stopped.map((outcome) => outcome.orderId));
		await sleep(1_000);
	}
}

export async function measureTimeout(environment: TimeoutEnvironment, workflow: RushWorkflow<'timeout'>, settings: RushSettings['timeout']): Promise<TimeoutFigures> {
	const { double } = environment;
	const url = `${environment.webhookBase}/${workflow.webhookPath}`;
	const workflowId = workflow.file.id;
	double.budget = undefined;
	double.faults.reset();
	// After the crash's restart n8n may serve this webhook a moment after its editor.
	const [first, ...warmUp] = shopOrders('TW', WARM_UP_ORDERS);
	await untilWebhookServes(url, first);
	await environment.installRetry(workflowId);
	await deliverPlan(url, atOnce(warmUp));
	const warmedUp = await waitUntilEnded(environment.store(), workflowId, WARM_UP_ORDERS, SETTLE_LIMIT_MS);
	const lastWarmUp = Math.max(...warmedUp.map((row) => Number(row.id)));

	const orders = shopOrders('TIMEOUT', settings.orders);
	double.budget = new RequestBudget(settings.budget);
	const [, stops] = await Promise.all([deliverPlan(url, plan(orders, settings.ordersPerSecond)), stopMidRush(environment, workflowId, settings)]);
	const rushRows = await waitUntilEnded(environment.store(), workflowId, WARM_UP_ORDERS + orders.length, SETTLE_LIMIT_MS);
	double.budget = undefined;
	const queuedInRush = queuedTimes(double, orders);
	const lastOfRush = Math.max(...rushRows.map((row) => Number(row.id)));

	// The shop delivers nothing again: the example retries what failed, crashed or timed out; what a person stopped, not.
	const stoppedIds = new Set(stops.ids);
	const rushIds = new Set(rushRows.filter((row) => Number(row.id) > lastWarmUp).map((row) => row.id));
	// A stop is obeyed: its orders wait for a person, unless another delivery of them went.
	const withheld = await ordersOfStopped(environment, workflowId, stoppedIds);
	const owed = orders.filter((order) => !withheld.has(String(order.id)));
	const withheldOrders = orders.filter((order) => withheld.has(String(order.id)));
	const rows = await whileRetrying(environment.store(), workflowId, {
		counted: (row) => Number(row.id) > lastWarmUp,
		settled: () => queuedTimes(double, owed).never === 0,
		limitMs: SETTLE_LIMIT_MS,
	});

	const lastOfRetries = Math.max(...rows.map((row) => Number(row.id)));
	await sleep(QUIET_BEFORE_ALONE_MS);
	const [lone] = shopOrders('TIMEOUT-ALONE', 1);
	await deliverPlan(url, atOnce([lone]));
	const [aloneRow] = await waitUntilEnded(environment.store(), workflowId, 1, SETTLE_LIMIT_MS, (row) => Number(row.id) > lastOfRetries);
	const aloneMs = (await environment.store().durationsMs(workflowId)).get(aloneRow.id) ?? Number.NaN;

	const outcomes = await readOutcomes(environment.store(), workflowId, 'Shop Order Webhook');
	const rush = outcomes.filter((outcome) => rushIds.has(outcome.id));
	const createStarts = rush.flatMap(({ nodeStartsMs }) => (nodeStartsMs[SEND_NODE] === undefined ? [] : [nodeStartsMs[SEND_NODE]]));
	const retries = outcomes.filter((outcome) => Number(outcome.id) > lastOfRush && Number(outcome.id) <= lastOfRetries);
	// A cancelled execution is never retried (n8n's retry of one runs nothing): Create stops waiting before the timeout so that it fails instead.
	const left = new Set(leftUnretried(rows, (row) => row.status === 'error' || row.status === 'crashed').map((row) => row.id));
	const failedAtEnd = outcomes.filter((outcome) => left.has(outcome.id));
	return {
		orders: orders.length,
		rushEndedAs: tally(rush.map((outcome) => outcome.status)),
		queuedInRush: queuedInRush.once + queuedInRush.twice,
		createStartedAfterMs: { p50: percentile(createStarts, 0.5), p95: percentile(createStarts, 0.95) },
		stopped: {
			asked: stops.asked,
			took: stops.ids.length,
			endedFirst: stops.endedFirst,
			refused: stops.refused,
			endedAs: tally(rush.filter((outcome) => stoppedIds.has(outcome.id)).map((outcome) => outcome.status)),
		},
		queued: queuedTimes(double, owed),
		withheldByStops: queuedTimes(double, withheldOrders).never,
		retries: {
			retried: retries.length,
			ofStopped: rows.filter((row) => row.retryOf !== undefined && stoppedIds.has(row.retryOf)).length,
			endedAs: tally(retries.map((outcome) => outcome.status)),
			failedAtEnd: failedAtEnd.length,
			reasons: failedAtEnd.slice(0, 3).map((outcome) => `execution ${outcome.id} (${outcome.orderId}) ${outcome.status}: ${outcome.nodeErrors.join('; ') || 'no error recorded'}`.slice(0, 300)),
		},
		alone: { status: aloneRow.status, seconds: aloneMs / 1000, queued: queuedTimes(double, [lone]).once === 1 },
	};
}

const statuses = (counts: Record<string, number>) => Object.entries(counts).map(([status, count]) => `${status} ${count}`).join(', ') || 'none';

/** The figures as lines, and the verdict: every order a stop did not withhold queued exactly once, nothing left failed and not retried, no stopped execution retried, n8n took a stop and refused none of a running execution. */
export function describeTimeout(figures: TimeoutFigures, settings: RushSettings['timeout']): { lines: string[]; passed: boolean } {
	const { queued, retries, stopped } = figures;
	const failures = [
		queued.twice > 0 ? `${queued.twice} orders queued twice` : '',
		queued.never > 0 ? `${queued.never} orders never queued` : '',
		retries.failedAtEnd > 0 ? `${retries.failedAtEnd} executions left failed or crashed, not retried` : '',
		retries.ofStopped > 0 ? `${retries.ofStopped} executions stopped by hand were retried` : '',
		stopped.took === 0 ? 'n8n stopped no execution' : '',
		figures.alone.status !== 'success' || !figures.alone.queued ? `the order alone afterwards ended ${figures.alone.status}, ${figures.alone.queued ? 'queued' : 'not queued'}` : '',
		stopped.refused.length > 0 ? `n8n refused ${stopped.refused.length} stops` : '',
	].filter(Boolean);
	const { rate, burst, retryAfter } = settings.budget;
	const lines = [
		`Timeout mid-rush, the shop delivering once: Create with the order id as Deduplication Key, Timeout Workflow ${settings.executionTimeoutSeconds} s, ${settings.orders} orders at ${settings.ordersPerSecond} per second, ` +
			`the account's budget ${rate} per second, burst ${burst}, 429 with Retry-After ${retryAfter}; ${settings.stopAfterMs / 1000} s in (or once one runs), the ${settings.stops} newest running executions stopped through n8n's REST API; ` +
			`the README's retry (${RETRY_EXAMPLE}) published with the shop workflow, the budget lifted once the rush's executions ended, nothing delivered again, no one acting:`,
		`  rush: executions ended ${statuses(figures.rushEndedAs)}; Create started ${seconds(figures.createStartedAfterMs.p50)} (p50), ${seconds(figures.createStartedAfterMs.p95)} (p95) after n8n started the execution; orders queued ${figures.queuedInRush}; ` +
			`stops asked ${stopped.asked}: n8n stopped ${stopped.took} (ended ${statuses(stopped.endedAs)}), ${stopped.endedFirst} had ended before the stop reached them; their orders not sent (left to a person) ${figures.withheldByStops}`,
		`  n8n's retries: ${retries.retried} (${statuses(retries.endedAs)}), of executions stopped by hand ${retries.ofStopped}, left failed and not retried ${retries.failedAtEnd}; ` +
			`orders but those withheld queued once ${queued.once}, twice ${queued.twice}, never ${queued.never}${queued.never > 0 ? ` (e.g. ${queued.neverIds.slice(0, 3).join(', ')})` : ''}`,
		`  then one new order alone: its execution ${figures.alone.status} in ${figures.alone.seconds.toFixed(1)} s, ${figures.alone.queued ? 'queued once' : 'NOT queued once'}: ${failures.length === 0 ? 'passed' : `FAILED (${failures.join(', ')})`}`,
		...[...retries.reasons, ...stopped.refused.slice(0, 3)].map((reason) => `    ${reason}`),
	];
	return { lines, passed: failures.length === 0 };
}
