/**
 * n8n killed in the middle of a rush (issue 38), and the shop delivering each order once (issue
 * 57): keyed Create takes one order per webhook call, faster than the account's budget, whose 429
 * asks for a long pause, so that orders wait in the account's sender; n8n is killed (SIGKILL, as
 * an out-of-memory kill or a lost host does), or stopped (SIGTERM to n8n's process, as an
 * orchestrator stops it: n8n waits for its executions, at most its graceful-shutdown time), and
 * started again on the same database. Nothing n8n answered is delivered again (a call the kill
 * cut off before its answer is, as a shop retries a failed answer) and no one acts: the README's
 * retry (examples/retry-orders-not-sent.json),
 * published with the shop workflow, retries what failed or crashed every minute, its own
 * retries that fail again too. Keys are claimed only as
 * their request leaves, so an order that was waiting is sent by the retry; only orders of requests
 * under way at the kill may stay unknown. No order may be queued twice, and no more may stay
 * unsent than the requests under way at the kill carried.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { RequestBudget } from '../double/budget';
import type { ServiceDouble } from '../double/server';
import { atOnce, deliverPlan, shopOrders, untilWebhookServes } from './delivery';
import { type ExecutionOutcome, type ExecutionRow, type ExecutionStore, leftUnretried, notesOf, readOutcomes, tally, waitUntilEnded, whatBecameOf, whileRetrying } from './executions';
import { RETRY_EXAMPLE } from './retryExample';
import { queuedTimes } from './rush';
import type { RushSettings } from './rushSettings';
import type { RushWorkflow } from './rushWorkflows';

const WARM_UP_ORDERS = 5;
const SETTLE_LIMIT_MS = 10 * 60_000;
/** How long after n8n serves again the orders may take to be queued (issue 57): the retry example's minute, or queue mode's delivery again after 3 minutes. */
const QUEUED_WITHIN_MS = 300_000;

export interface CrashEnvironment {
	double: ServiceDouble;
	/** The process the signal ends, as the report names it: n8n itself, or in queue mode one worker or the main instance. */
	ended?: string;
	/** How long n8n may take after the restart to mark the executions the signal took as crashed (`RECOVERY_LIMIT_MS` unless said). */
	recoveryLimitMs?: number;
	webhookBase: string;
	/** n8n's executions as the running n8n has them (read anew after the restart). */
	store(): ExecutionStore;
	/** SIGKILL: kills n8n's whole process group; SIGTERM: stops n8n's process, as an orchestrator does. Resolves once n8n has exited. */
	kill(signal: EndSignal): Promise<void>;
	/** Starts n8n again on the same database and waits for its editor. */
	restart(): Promise<void>;
	/** Sets up and publishes the README's retry of the executions of the workflow with this id. */
	installRetry(shopWorkflowId: string): Promise<void>;
	/**
	 * The example `installRetry` sets up, where not the retry of failed and crashed executions:
	 * queue mode's delivers orders again instead, and leaves the executions a killed worker took failed.
	 */
	sendsAgain?: { example: string; byRetry: boolean };
}


/** How n8n's process ends mid-rush. */
export type EndSignal = 'SIGKILL' | 'SIGTERM';

export interface CrashFigures {
	signal: EndSignal;
	/** What the signal ended (CrashEnvironment.ended). */
	ended: string;
	/** The shop workflow's name. */
	workflow: string;
	/** What sends again what n8n did not send (CrashEnvironment.sendsAgain). */
	sendsAgain: { example: string; byRetry: boolean };
	orders: number;
	/** Deliveries the kill cut off before n8n answered 200: the shop delivers them again. */
	unanswered: number;
	/** Seconds from the signal until n8n had exited. */
	exitSeconds: number;
	/** Executions of the deliveries before the kill, and their status in n8n's database at the end. */
	takenBeforeKill: number;
	endedAs: Record<string, number>;
	/** POSTs to the service under way at the kill (their answers lost) and the orders they carried. */
	requestsUnderWay: number;
	ordersUnderWay: number;
	/**
	 * Orders never queued whose execution said the outcome is unknown, as documented limits: the
	 * kill struck after their key's claim was recorded and before their request left, or in queue
	 * mode another worker's overlapping write brought back a key given back after a refusal.
	 */
	unknownAtKill: number;
	queued: { once: number; twice: number; never: number; neverIds: string[] };
	/** The most orders one accepted request carried. */
	largestRequest: number;
	/** The example's retries of what failed or crashed: executions retried, those left failed or crashed (with why), those n8n left "new" or "running". */
	retries: { retried: number; failedAtEnd: number; reasons: string[]; leftNew: number; leftRunning: number };
	/** What n8n recorded of the executions of the first few orders never queued: why each was not sent. */
	neverNotes: string[];
	restartSeconds: number;
	/** From n8n serving again (the cause's end) to the last transaction the service queued. */
	secondsToLastQueued: number;
}

/** How long n8n may take after its restart to mark the executions a kill took as crashed: it does so after its webhooks serve. */
const RECOVERY_LIMIT_MS = 60_000;


/** How many of `ids` an execution said were of unknown outcome (an item skipped for a key taken without its outcome, or the Redis example's failure saying so). */
function saidUnknown(outcomes: readonly ExecutionOutcome[], ids: readonly string[]): number {
	const unknown = /outcome unknown|an earlier execution took this Deduplication Key/;
	return ids.filter((id) => outcomes.some((outcome) => outcome.orderId === id && notesOf(outcome).some((note) => unknown.test(note)))).length;
}

/** The executions of before the kill once n8n's recovery has marked them: none left "running", or the limit passed. */
async function afterRecovery(store: ExecutionStore, workflowId: string, lastWarmUp: number, limitMs: number): Promise<ExecutionRow[]> {
	const deadline = Date.now() + limitMs;
	for (;;) {
		const rows = (await store.list(workflowId)).filter((row) => Number(row.id) > lastWarmUp);
		if (rows.every((row) => row.status !== 'running') || Date.now() > deadline) return rows;
		await sleep(1_000);
	}
}

export async function measureCrash(environment: CrashEnvironment, workflow: RushWorkflow<string>, settings: RushSettings['crash' | 'stop'], signal: EndSignal): Promise<CrashFigures> {
	const prefix = signal === 'SIGKILL' ? 'CRASH' : 'STOP';
	const { double } = environment;
	const url = `${environment.webhookBase}/${workflow.webhookPath}`;
	double.budget = undefined;
	double.faults.reset();
	await environment.installRetry(workflow.file.id);
	await deliverPlan(url, atOnce(shopOrders(`${prefix}-W`, WARM_UP_ORDERS)));
	const warmedUp = await waitUntilEnded(environment.store(), workflow.file.id, WARM_UP_ORDERS, SETTLE_LIMIT_MS);
	const lastWarmUp = Math.max(...warmedUp.map((row) => Number(row.id)));

	const orders = shopOrders(prefix, settings.orders);
	const interval = 1000 / settings.ordersPerSecond;
	const plan = orders.map((order, index) => ({ atMs: index * interval, order })).filter((delivery) => delivery.atMs < settings.killAfterMs);
	const firstRequest = double.requests.length;
	double.budget = new RequestBudget(settings.budget);
	const firstDeliveries = deliverPlan(url, plan);
	await sleep(settings.killAfterMs);
	const signalledAt = Date.now();
	await environment.kill(signal);
	const exitSeconds = (Date.now() - signalledAt) / 1000;
	const deliveries = await firstDeliveries;
	const atKill = double.requests.length;

	const restartedAt = Date.now();
	await environment.restart();
	double.budget = undefined;
	await untilWebhookServes(url, shopOrders(`${prefix}-W-AFTER`, 1)[0]); // its webhooks come up after its editor
	const restartSeconds = (Date.now() - restartedAt) / 1000;
	const servingAgainMs = performance.now();
	const store = environment.store();
	// The shop delivers nothing again: what n8n answered and did not send is retried by the example, on its own.
	const first = await afterRecovery(store, workflow.file.id, lastWarmUp, environment.recoveryLimitMs ?? RECOVERY_LIMIT_MS);
	double.budget = new RequestBudget(settings.budget);
	// A call the kill cut off before n8n answered 200 the shop delivers again, as Shopify retries a failed answer.
	const unanswered = new Set(deliveries.filter((delivery) => delivery.problem !== undefined).map((delivery) => delivery.orderId));
	await deliverPlan(url, atOnce(plan.filter(({ order }) => unanswered.has(order.id)).map(({ order }) => order)));
	// Executions of before the kill that n8n left "new" (created, not started: n8n refuses to retry them) or "running" after its recovery stay so for ever.
	const stuck = new Set(first.filter((row) => row.status === 'new' || row.status === 'running').map((row) => row.id));
	const planOrders = plan.map(({ order }) => order);
	const underWay = double.requests.slice(firstRequest, atKill).filter((request) => request.answerLost === true && request.rawPath.startsWith('transactions'));
	const ordersUnderWay = underWay.reduce((sum, request) => sum + (request.orders?.length ?? 0), 0);
	const leftNewAtRecovery = first.filter((row) => row.status === 'new').length;
	let lookedForUnknownAt = 0;
	const rows = await whileRetrying(store, workflow.file.id, {
		counted: (row) => Number(row.id) > lastWarmUp && !stuck.has(row.id),
		settled: async () => {
			const { never, neverIds } = queuedTimes(double, planOrders);
			if (never <= ordersUnderWay + leftNewAtRecovery) return true;
			// Reading every execution's data is slow: every 15 s at most.
			if (Date.now() - lookedForUnknownAt < 15_000) return false;
			lookedForUnknownAt = Date.now();
			return never <= Math.max(ordersUnderWay, saidUnknown(await readOutcomes(store, workflow.file.id, 'Shop Order Webhook'), neverIds)) + leftNewAtRecovery;
		},
		limitMs: SETTLE_LIMIT_MS,
	});
	double.budget = undefined;

	const outcomes = await readOutcomes(store, workflow.file.id, 'Shop Order Webhook');
	const firstIds = new Set(first.map((row) => row.id));
	// Every execution of the first deliveries (some without run data), also those n8n recorded only after the restart.
	const taken = outcomes.filter((outcome) => firstIds.has(outcome.id) && outcome.orderId?.startsWith(`${prefix}-W`) !== true);
	const endedAs = tally(taken.map((outcome) => outcome.status));
	const stuckAtEnd = (await store.list(workflow.file.id)).filter((row) => stuck.has(row.id));
	const leftNew = stuckAtEnd.filter((row) => row.status === 'new').length;
	const leftRunning = stuckAtEnd.filter((row) => row.status === 'running').length;
	const retries = outcomes.filter((outcome) => Number(outcome.id) > lastWarmUp && !firstIds.has(outcome.id) && outcome.orderId?.startsWith(`${prefix}-W`) !== true && !unanswered.has(outcome.orderId ?? ''));
	const left = new Set(leftUnretried(rows, (row) => row.status === 'error' || row.status === 'crashed').map((row) => row.id));
	const failedAtEnd = outcomes.filter((outcome) => left.has(outcome.id));
	const posts = double.requests.slice(firstRequest).filter((request) => request.rawPath.startsWith('transactions'));
	const lastQueuedMs = Math.max(servingAgainMs, ...posts.filter((request) => request.status === 200).map((request) => request.receivedAtMs));
	// The orders the shop delivered before the kill: those after it it would deliver to the n8n started again.
	const queued = queuedTimes(double, planOrders);
	return {
		signal,
		ended: environment.ended ?? 'n8n',
		workflow: workflow.file.name,
		sendsAgain: environment.sendsAgain ?? { example: RETRY_EXAMPLE, byRetry: true },
		orders: plan.length,
		unanswered: unanswered.size,
		exitSeconds,
		takenBeforeKill: taken.length,
		endedAs,
		requestsUnderWay: underWay.length,
		ordersUnderWay,
		unknownAtKill: saidUnknown(outcomes, queued.neverIds),
		queued,
		largestRequest: Math.max(0, ...posts.filter((request) => request.status === 200).map((request) => request.orders?.length ?? 0)),
		retries: {
			retried: retries.length,
			failedAtEnd: failedAtEnd.length,
			leftNew,
			leftRunning,
			reasons: failedAtEnd.slice(0, 3).map((outcome) => `execution ${outcome.id} (${outcome.orderId}) ${outcome.status}: ${outcome.nodeErrors.join('; ')}`.slice(0, 300)),
		},
		neverNotes: queued.neverIds.slice(0, 3).map((id) => whatBecameOf(id, outcomes)),
		restartSeconds,
		secondsToLastQueued: (lastQueuedMs - servingAgainMs) / 1000,
	};
}

/** The crash's figures as lines, and the verdict: no order twice, no more unsent than the requests under way at the kill carried, no retry left failed. */
export function describeCrash(figures: CrashFigures, settings: RushSettings['crash' | 'stop']): { lines: string[]; passed: boolean } {
	const { queued, retries } = figures;
	const failures = [
		queued.twice > 0 ? `${queued.twice} orders queued twice` : '',
		// n8n's limit: an execution it created and had not started at the kill stays "new" after its restart, and n8n refuses to retry it (one order each).
		queued.never > Math.max(figures.ordersUnderWay, figures.unknownAtKill) + retries.leftNew
			? `${queued.never} orders never queued, more than the requests under way at the kill carried (${figures.ordersUnderWay}), those whose execution said the outcome is unknown (${figures.unknownAtKill}) and the executions n8n left "new" (${retries.leftNew})`
			: '',
		figures.sendsAgain.byRetry && retries.failedAtEnd > 0 ? `${retries.failedAtEnd} executions left failed or crashed, not retried` : '',
		figures.secondsToLastQueued > QUEUED_WITHIN_MS / 1000 ? `the last order queued ${figures.secondsToLastQueued.toFixed(0)} s after n8n served again` : '',
	].filter(Boolean);
	const { rate, burst, retryAfter } = settings.budget;
	const lines = [
		`${figures.signal === 'SIGKILL' ? 'Crash' : 'Stop'} mid-rush, the shop delivering once: "${figures.workflow}", orders at ${settings.ordersPerSecond} per second, the account's budget ${rate} per second, burst ${burst}, 429 with Retry-After ${retryAfter}; ` +
			`${figures.ended} ${figures.signal === 'SIGKILL' ? 'killed (SIGKILL)' : 'stopped (SIGTERM, as an orchestrator stops it)'} ${settings.killAfterMs / 1000} s in (${figures.orders} orders delivered by then, ${figures.unanswered} of them cut off before n8n answered and delivered again after, as a shop retries a failed answer; exited ${figures.exitSeconds.toFixed(0)} s later), started again (${figures.restartSeconds.toFixed(0)} s until its webhook served), the README's ${figures.sendsAgain.byRetry ? 'retry' : 'delivery again'} (${figures.sendsAgain.example}) published with the shop workflow, nothing delivered again, no one acting:`,
		`  taken by n8n before the kill ${figures.takenBeforeKill} (at the end ${Object.entries(figures.endedAs).map(([status, count]) => `${status} ${count}`).join(', ')}); ` +
			`requests under way at the kill ${figures.requestsUnderWay}, carrying ${figures.ordersUnderWay} orders; orders never queued whose execution said the outcome is unknown ${figures.unknownAtKill}; ${figures.sendsAgain.byRetry ? "n8n's retries" : 'deliveries again'} ${retries.retried}; left "new" (created, never started, not retryable) ${retries.leftNew}, left "running" by n8n's recovery ${retries.leftRunning}`,
		`  queued once ${queued.once}, twice ${queued.twice}, never ${queued.never}${queued.never > 0 ? ` (e.g. ${queued.neverIds.slice(0, 3).join(', ')})` : ''}; ` +
			`the last ${figures.secondsToLastQueued.toFixed(0)} s after n8n served again; the largest request carried ${figures.largestRequest}: ${failures.length === 0 ? 'passed' : `FAILED (${failures.join(', ')})`}`,
		...retries.reasons.map((reason) => `    ${reason}`),
		...figures.neverNotes.map((note) => `    never queued: ${note}`),
	];
	return { lines, passed: failures.length === 0 };
}
