/**
 * A nightly bulk beside a shop's orders (issue 38), on one account: one execution sends many
 * orders (a batch webhook -> Split Out -> Create, with a small Max Request Bytes and a Max Wait
 * Seconds shorter than the whole sending) to a service that reads each request at a set speed;
 * a few seconds later one-order executions arrive, against the account's request budget. The
 * bulk must send everything, as fast as the service reads it; the small orders must not wait
 * behind it. Figures come from the double (queued, requests, reading time) and n8n's database.
 */
import { seconds } from '../../nodes/MailingPlatform/helpers/numbers';
import { RequestBudget } from '../double/budget';
import type { RecordedRequest, ServiceDouble } from '../double/server';
import { atOnce, deliverPlan, shopOrders } from './delivery';
import { type ExecutionStore, readOutcomes, waitUntilEnded } from './executions';
import { executionsOf, queuedTimes } from './rush';
import { BULK_SLOWDOWN_LIMIT, BULK_SMALL_P95_GOAL_MS, BULK_SMALL_P95_LIMIT_MS, type RushSettings } from './rushSettings';
import { batchBody, type RushWorkflow } from './rushWorkflows';

const WARM_UP_ORDERS = 5;
const SETTLE_LIMIT_MS = 10 * 60_000;

export interface BulkEnvironment {
	double: ServiceDouble;
	store(): ExecutionStore;
	webhookBase: string;
}

export interface BulkFigures {
	orders: number;
	queued: { once: number; twice: number; never: number };
	/** How the bulk's execution ended in n8n's database, and its error if any. */
	status: string;
	error?: string;
	/** n8n's startedAt to stoppedAt of the bulk's execution. */
	seconds: number;
	/** What the service spent reading the requests that carried the bulk's orders, one after the other. */
	readingSeconds: number;
	/** From the first of those requests reaching the service to the end of the last one's reading: the bulk's sending, without n8n building it first. */
	sendingSeconds: number;
	requests: number;
	small: { orders: number; queuedOnce: number; failed: number; p50Ms: number; p95Ms: number; reasons: string[] };
	postsAccepted: number;
	postsRefused: number;
}

const carries = (request: RecordedRequest, prefix: string) => request.orders?.some((id) => id?.startsWith(prefix)) === true;

async function post(url: string, body: string): Promise<void> {
	const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
	if (response.status !== 200) throw new Error(`POST ${url} was answered HTTP ${response.status}`);
}

/** The workflow's latest execution: how it ended, its error, how long it ran. */
async function latestExecution(store: ExecutionStore, workflow: RushWorkflow<string>): Promise<{ status: string; error?: string; ms: number }> {
	const outcomes = await readOutcomes(store, workflow.file.id, 'Shop Order Webhook');
	const latest = outcomes.reduce((last, outcome) => (Number(outcome.id) > Number(last.id) ? outcome : last));
	const ms = (await store.durationsMs(workflow.file.id)).get(latest.id) ?? Number.NaN;
	return { status: latest.status, error: latest.nodeErrors.join('; ') || undefined, ms };
}

export async function measureBulk(environment: BulkEnvironment, [bulk, small]: [RushWorkflow<'bulk'>, RushWorkflow<'bulkSmall'>], settings: RushSettings['bulk']): Promise<BulkFigures> {
	const { double } = environment;
	const store = environment.store();
	double.budget = undefined;
	double.faults.reset();
	const url = (path: string | undefined) => `${environment.webhookBase}/${path}`;
	await post(url(bulk.fillPath), batchBody(shopOrders('BW', WARM_UP_ORDERS)));
	await deliverPlan(url(small.webhookPath), atOnce(shopOrders('BSW', WARM_UP_ORDERS)));
	await waitUntilEnded(store, bulk.file.id, 1, SETTLE_LIMIT_MS);
	await waitUntilEnded(store, small.file.id, WARM_UP_ORDERS, SETTLE_LIMIT_MS);

	const firstRequest = double.requests.length;
	double.faults.msPerMegabyte = settings.msPerMegabyte;
	double.budget = new RequestBudget(settings.budget);
	const bulkOrders = shopOrders('BULK', settings.orders);
	const smallOrders = shopOrders('SHOP', settings.small.orders);
	const bulkPost = post(url(bulk.fillPath), batchBody(bulkOrders));
	const interval = 1000 / settings.small.perSecond;
	const deliveries = await deliverPlan(url(small.webhookPath), smallOrders.map((order, index) => ({ atMs: settings.small.afterMs + index * interval, order })));
	await bulkPost;
	await waitUntilEnded(store, bulk.file.id, 2, SETTLE_LIMIT_MS);
	await waitUntilEnded(store, small.file.id, WARM_UP_ORDERS + smallOrders.length, SETTLE_LIMIT_MS);
	double.budget = undefined;
	double.faults.reset();

	const bulkRun = await latestExecution(store, bulk);
	const requests = double.requests.slice(firstRequest).filter((request) => request.rawPath.startsWith('transactions'));
	const bulkRequests = requests.filter((request) => request.status === 200 && carries(request, 'BULK-'));
	const readingMs = (request: RecordedRequest) => (request.bodyBytes / 1_000_000) * settings.msPerMegabyte;
	const smallRuns = await executionsOf(store, small, smallOrders);
	const smallQueued = queuedTimes(double, smallOrders);
	const reasons = [
		...smallRuns.failed.map((outcome) => `execution ${outcome.id} (${outcome.orderId}): ${outcome.nodeErrors.join('; ')}`.slice(0, 300)),
		...deliveries.filter((delivery) => delivery.problem !== undefined).map((delivery) => `POST of ${delivery.orderId}: ${delivery.problem}`),
	];
	return {
		orders: bulkOrders.length,
		queued: queuedTimes(double, bulkOrders),
		status: bulkRun.status,
		error: bulkRun.error,
		seconds: bulkRun.ms / 1000,
		readingSeconds: bulkRequests.reduce((sum, request) => sum + readingMs(request), 0) / 1000,
		sendingSeconds: bulkRequests.length === 0 ? Number.NaN : (Math.max(...bulkRequests.map((request) => request.receivedAtMs + readingMs(request))) - bulkRequests[0].receivedAtMs) / 1000,
		requests: bulkRequests.length,
		small: {
			orders: smallOrders.length,
			queuedOnce: smallQueued.once,
			failed: smallRuns.failed.length,
			p50Ms: smallRuns.executionMs.p50,
			p95Ms: smallRuns.executionMs.p95,
			reasons: reasons.slice(0, 5),
		},
		postsAccepted: requests.filter((request) => request.status === 200).length,
		postsRefused: requests.filter((request) => request.status === 429).length,
	};
}

const thousands = (value: number) => value.toLocaleString('en-US');
/** The bulk's figures as lines, and the verdict: everything sent once, no failure, the bulk at the service's pace, the small orders not behind it. */
export function describeBulk(figures: BulkFigures, settings: RushSettings['bulk']): { lines: string[]; passed: boolean } {
	const { small, queued } = figures;
	const slowdown = figures.sendingSeconds / figures.readingSeconds;
	const failures = [
		queued.once !== figures.orders ? `bulk: ${thousands(figures.orders - queued.once)} orders not queued exactly once` : '',
		figures.status !== 'success' ? `the bulk's execution ended ${figures.status}: ${figures.error ?? ''}` : '',
		!(slowdown <= BULK_SLOWDOWN_LIMIT) ? `the bulk's sending took ${slowdown.toFixed(2)} times the service's reading time` : '',
		small.queuedOnce !== small.orders ? `${small.orders - small.queuedOnce} one-order executions' orders not queued exactly once` : '',
		small.failed > 0 ? `${small.failed} one-order executions failed` : '',
		!(small.p95Ms <= BULK_SMALL_P95_LIMIT_MS) ? `one-order p95 ${seconds(small.p95Ms)} over ${seconds(BULK_SMALL_P95_LIMIT_MS)}` : '',
	].filter(Boolean);
	const { rate, burst, retryAfter } = settings.budget;
	const goal = small.p95Ms <= BULK_SMALL_P95_GOAL_MS ? 'met' : 'missed';
	const lines = [
		`Bulk beside the shop's orders: one execution of ${thousands(figures.orders)} orders (Max Request Bytes ${thousands(settings.maxRequestBytes)}, Max Wait Seconds ${settings.maxWaitSeconds}), the service reading ${settings.msPerMegabyte / 1000} s per MB; ` +
			`${settings.small.afterMs / 1000} s later ${small.orders} one-order executions at ${settings.small.perSecond} per second; the account's budget ${rate} requests per second, burst ${burst}, 429 with Retry-After ${retryAfter}:`,
		`  bulk: queued once ${thousands(queued.once)}, twice ${queued.twice}, never ${thousands(queued.never)}; its execution ended ${figures.status} after ${figures.seconds.toFixed(1)} s; ` +
			`its ${figures.requests} requests reached the service over ${figures.sendingSeconds.toFixed(1)} s, which read them in ${figures.readingSeconds.toFixed(1)} s (${slowdown.toFixed(2)} times that; at most ${BULK_SLOWDOWN_LIMIT})`,
		`  one-order executions: queued once ${small.queuedOnce} of ${small.orders}; failed ${small.failed}; execution p50 ${seconds(small.p50Ms)}, p95 ${seconds(small.p95Ms)} ` +
			`(at most ${seconds(BULK_SMALL_P95_LIMIT_MS)}; goal ${seconds(BULK_SMALL_P95_GOAL_MS)}: ${goal})`,
		`  POSTs accepted ${figures.postsAccepted}, refused (429) ${figures.postsRefused}: ${failures.length === 0 ? 'passed' : `FAILED (${failures.join(', ')})`}`,
		...small.reasons.map((reason) => `    ${reason}`),
	];
	return { lines, passed: failures.length === 0 };
}
