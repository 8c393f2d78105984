/**
 * The promise Create keeps, read off a simulated case (the service's record, n8n's store and
 * each item's output), whatever struck and wherever:
 * - every execution ends, each input item as exactly one output item;
 * - an item says queued only where the service queued it, and declined only where it did not; "not sent" only where no request that
 *   carried it was acted on, saying that a re-run sends it; outcome unknown only where its bytes
 *   may have been acted on; "already sent" only for an order the service queued;
 * - an item is "not sent" for Max Wait Seconds only once it waited that long, its own requests' time not counted;
 * - a keyed item "not sent" that says a re-run sends it leaves its key free in n8n's store, unless
 *   another delivery of its order took it;
 * - a keyed order is queued at most once (across processes only n8n's store's documented limit, an
 *   overlapping write that lost a change of its key, excuses a second time);
 * - end to end, the shop delivering each order once: every keyed order ends queued, refused for
 *   good, or unknown (an item said so), once n8n's sweep retried what failed or crashed;
 *   only a user's stop leaves it unsent (and the workflow timeout's documented limit); in queue
 *   mode's Redis design the same, once the redelivery workflow delivered again what it kept;
 * - nothing is left after the case: a fresh order after it ends at once;
 * - a one-order execution's transaction never rides in a request with more than 10 of another's;
 * - no step of the case (while its faults strike: heldThread.ts says why not after) held the
 *   thread longer than `HELD_LIMIT_MS`: n8n's timers fire on time;
 * - an execution never waits past Max Wait Seconds since the service last reported on its
 *   transactions, its own requests' and its process's store calls' time not counted;
 * - after a 429 or 503 a process (in that life) sends nothing for the pause the service asked (`Retry-After`,
 *   whole seconds or not, or a date) and at least a backoff's first 250 ms;
 * - while a process waits for the account to take a request after a refusal, each request it
 *   sends carries at most `PROBE_BYTES`, and one at a time.
 *
 * An excuse names a documented limit (docs/behaviour.md, Limits), and is as narrow as it: n8n's
 * store across processes (a write over a row another process changed since its read, or a read
 * mark another process found), a kill while an order's key was recorded and not yet settled, a
 * report in another order whose swapped entries name the same contact, n8n's workflow timeout
 * cancelling an execution whose store calls or request outlasted Create's last seconds, and Max
 * Wait Seconds no longer than the pacing interval. Each excused problem is counted per check, for
 * the run to print. The checks of time are in timingChecks.ts.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { beforeTimeoutMs } from '../../nodes/MailingPlatform/actions/transaction/waits';
import type { ItemResult } from '../../nodes/MailingPlatform/helpers/itemResults';
import type { RequestRecord } from './model';
import { acted as actedOn, BULK_ORDERS, LARGE_ORDER, leftOpen } from './model';
import { keyTaken } from '../harness/processedData';
import { HELD_LIMIT_MS } from './heldThread';
import { maxWaitProblems, overdueProblems, pauseProblems, probeProblems } from './timingChecks';
import { positionsOf, redisKillLimitOf } from './redisLimits';
import type { Execution, World } from './world';
import { CALM_LIMIT_MS } from './world';

/** What the checks found, and the problems a documented limit excused, counted per check. */
export interface Findings {
	problems: string[];
	/** Per check and limit, e.g. "doubled (overlapping writes)": the problems the limit excused. */
	excused: Map<string, number>;
	/** Keyed orders delivered in a case on two processes or more, where the limits can strike. */
	keyedOrdersAcrossProcesses: number;
	/** The faults of the sender's own code the case drew, and those that struck. */
	codeFaults: { drawn: number; fired: number };
	/** In the Redis design, where its kills, stops and timeouts fell (`positionsOf`), each with the orders they struck; a run counts per position the cases that lost one of those. */
	positions: Array<{ position: string; orders: string[] }>;
	/** The keyed orders never queued, excused or not. */
	lostOrders: string[];
}

/** The documented limits of n8n's store across processes (docs/behaviour.md, Orders That Arrive Together). */
const OVERLAPPING_WRITES = 'overlapping writes';
const REMOVAL_ROUND = "another process's removal round";
const READ_MARKS = 'a mark read by another process';
const ERASED_READ = 'an entry overlapping writes erased, read before it was written again';

/** The documented limits of a killed n8n (docs/behaviour.md, Limits): what it was sending, or its key recorded as it died, stays unknown. */
const UNDER_WAY_AT_KILL = 'a request under way at a kill';
const RECORDED_AT_KILL = 'a kill between recording a key and settling it';
const KILLED_READ_MARK = 'a mark read by a killed process';

/** The documented limit of n8n's store that answers a recording call with an error after writing it (docs/behaviour.md, Deduplication Key). */
const LOST_STORE_ANSWER = "a store call's answer lost after its write";

/**
 * The documented limit of n8n's store across processes (docs/behaviour.md, Orders That Arrive
 * Together): a key another process's execution still held, its node running, when this one found
 * it, is one it cannot tell from a key whose sender died.
 */
const HELD_ELSEWHERE = "a key another process's execution held while it looked";

/**
 * Whether an execution of another process had `order` with a key, its node running while
 * `skipper`'s ran (the skipper looked at some moment of its run; the other may have started a
 * millisecond later and claimed first: seed 100001, case 4,360).
 */
function heldElsewhere(world: World, order: string, skipper: Execution): boolean {
	const [startedMs, returnedMs] = [skipper.startedAtMs ?? Number.POSITIVE_INFINITY, skipper.returnedAtMs ?? Number.POSITIVE_INFINITY];
	return world.executions.some((other) =>
		other !== skipper &&
		ranCreate(other) &&
		other.delivery.keyed &&
		other.delivery.process !== skipper.delivery.process &&
		ordersOf(other).includes(order) &&
		(other.startedAtMs ?? Number.POSITIVE_INFINITY) <= returnedMs &&
		(other.returnedAtMs ?? Number.POSITIVE_INFINITY) >= startedMs,
	);
}

/**
 * The documented limits of the workflow's timeout (docs/behaviour.md, Orders Not Sent Yet): Create
 * stops waiting 5 s before it (a third of it, if shorter than 15 s), counted from the execution's
 * start, but its process's calls of n8n's store (one after the other, spaced at a full history) or
 * its own request under way in those last seconds can outlast it; and n8n's own work before Create
 * (on a busy n8n, seconds) can take the whole timeout. n8n cancels the execution, and its retry
 * would run nothing.
 */
const WORK_AT_TIMEOUT = "n8n's timeout with store calls or its request under way in Create's last seconds";
const TIMEOUT_BEFORE_CREATE = "n8n's timeout before Create started";

/** What an item says that still waited to leave when its execution was stopped or cancelled. */
const WITHDRAWN = /^Not sent: the execution was stopped before this transaction left/;

/** Which limit of n8n's timeout left `order` unsent, if any: its execution cancelled before Create started, or while its process's store, its own claim or a request carrying its orders was at work when Create stopped waiting or, nothing left waiting, after. */
function timeoutLimitOf(world: World, order: string): string | undefined {
	// A queue-mode worker never cuts Create off: its timeout cancels at the next node, and the redelivery sends what is left.
	if (world.redisWorkflows !== undefined) return undefined;
	const { requests, storeSpans } = world.record;
	const timeoutMs = world.simulated.workflowTimeoutMs ?? 0;
	const cancelled = world.executions.filter(({ delivery, cancelledBy }) => cancelledBy === 'timeout' && delivery.orders.includes(order));
	if (cancelled.some(({ startedAtMs }) => startedAtMs === undefined)) return TIMEOUT_BEFORE_CREATE;
	const atWorkLate = cancelled.some(({ index, delivery, beganAtMs = 0, cancelledAtMs = 0, results = [], claims }) => {
		// Create's own deadline: n8n's timeout, from the execution's start, less Create's margin. What
		// was under way then may outlast the timeout, and so may the keys' settling of an execution
		// that left nothing waiting; an order still merely waiting then is Create's fault.
		const stoppedWaitingAtMs = beforeTimeoutMs({ getWorkflowSettings: () => ({ executionTimeout: timeoutMs / 1000 }) } as unknown as IExecuteFunctions, beganAtMs);
		const settling = !results.some((result) => WITHDRAWN.test(saidBy(result).text));
		const atWork = (startMs: number, endMs = Number.POSITIVE_INFINITY) => (settling ? startMs <= cancelledAtMs : startMs <= stoppedWaitingAtMs) && endMs >= stoppedWaitingAtMs;
		return (
			storeSpans.some((span) => span.process === delivery.process && atWork(span.startMs, span.endMs)) ||
			// Its own claim, waiting its turn in the process's store (calls one after the other) or under way.
			claims.some((claim) => atWork(claim.startMs, claim.endMs)) ||
			requests.some((request) => request.carried.some((carried) => carried.delivery === index) && atWork(request.sentAtMs, request.answeredAtMs))
		);
	});
	return atWorkLate ? WORK_AT_TIMEOUT : undefined;
}

/**
 * The documented limit of Max Wait Seconds (docs/behaviour.md, The Account's Requests): no longer
 * than the pacing interval, an execution meeting another's request gives up, and retries started
 * beside that other's retry each time may give up each time until the learned pace grows back.
 */
const MAX_WAIT_BELOW_PACE = 'Max Wait Seconds no longer than the pacing interval';

/** Whether the last item of `order` given up for Max Wait Seconds waited only for a pace whose interval is at least its Max Wait Seconds. */
function gaveUpBelowPace(world: World, order: string): boolean {
	const texts = world.executions.flatMap((execution) => ordersOf(execution).flatMap((candidate, item) => {
		const result = execution.results?.[item];
		return candidate === order && result !== undefined ? [{ text: saidBy(result).text, maxWaitSeconds: execution.delivery.maxWaitSeconds }] : [];
	}));
	const last = texts.at(-1);
	const pace = /Max Wait Seconds\) because (?:the pace the service's refusals taught \(([\d.]+) requests? per second\)|the credential's Max Requests per Second \(([\d.]+)\))/.exec(last?.text ?? '');
	// At an interval of exactly Max Wait Seconds the next start comes as it runs out.
	return last !== undefined && pace !== null && last.maxWaitSeconds * Number(pace[1] ?? pace[2]) <= 1;
}

/** The documented limit of pairing a report (docs/behaviour.md, Errors): entries in another order are told only by the contacts they name. */
const SAME_CONTACT_REORDERED = 'a report in another order naming the same contact';

type Said = 'queued' | 'declined' | 'notSent' | 'unknown' | 'alreadySent' | 'skipped';

interface ItemSaid {
	said: Said;
	text: string;
}

function saidBy(result: ItemResult): ItemSaid {
	if ('error' in result) {
		const text = `${result.error.message} ${result.error.description ?? ''}`;
		return { said: result.json?.outcomeUnknown === true ? 'unknown' : 'notSent', text };
	}
	const { json } = result;
	const text = String(json.message ?? '');
	if (json.skipped === true) return { said: /already sent/.test(text) ? 'alreadySent' : 'skipped', text };
	return { said: json.queued === true ? 'queued' : 'declined', text };
}

const ordersOf = (execution: Execution) => execution.delivery.orders;

/** Whether the execution ran Create: one that a kill, a stop or the timeout ended before Create started (in the Redis design, also another delivery's count) has no items. */
const ranCreate = (execution: Execution) => execution.startedAtMs !== undefined && execution.workflow?.reachedCreate !== false;

/**
 * An error item of a refusal a retry cannot change: the service's 4xx but 429, or the node's own
 * refusal of a transaction larger than Max Request Bytes (a large order's invoice is larger than
 * any Max Request Bytes the cases set).
 */
function refusedForGood(result: ItemResult, execution: Execution, order: string): boolean {
	if (!('error' in result)) return false;
	if (order.startsWith(LARGE_ORDER) && execution.delivery.maxRequestBytes !== undefined) return true;
	const code = Number((result.error as { httpCode?: unknown }).httpCode);
	return code >= 400 && code < 500 && code !== 429;
}

/**
 * Every problem the case shows, each a sentence naming the execution and item after the name of
 * its check (`doubled: …`); SIMULATION_SKIP may name checks to leave out, so that a search goes on
 * past a problem already known.
 */
export function problemsOf(world: World): string[] {
	return findingsOf(world).problems;
}

export function findingsOf(world: World): Findings {
	const problems: string[] = [];
	const excused = new Map<string, number>();
	/**
	 * Adds the problem unless the store's documented limit touched `order`; then counts it as
	 * excused. `overlapping: false` where overlapping writes explain it only where a call read an
	 * entry they had erased: a key its process gave back must never read as "outcome unknown" otherwise.
	 */
	const unlessStoreLimit = (order: string, problem: string, readMarks = false, overlapping = true) => {
		const limit = (overlapping ? record.overwrittenOrders : record.erasedReadOrders).has(order)
			? overlapping ? OVERLAPPING_WRITES : ERASED_READ
			: record.removedOrders.has(order)
				? REMOVAL_ROUND
				: readMarks && record.readMarkOrders.has(order)
					? READ_MARKS
					: readMarks && record.killedReadMarkOrders.has(order)
						? KILLED_READ_MARK
						: undefined;
		if (limit === undefined) return void problems.push(problem);
		const excuse = `${problem.slice(0, problem.indexOf(':'))} (${limit})`;
		excused.set(excuse, (excused.get(excuse) ?? 0) + 1);
	};
	const { record, executions } = world;
	const unknownOrders = new Set<string>();
	/** Orders an item said the service refused for good (a retry cannot change it), and those of executions a user stopped. */
	const refusedOrders = new Set<string>();
	const stoppedOrders = new Set<string>(executions.filter((execution) => execution.cancelledBy === 'user').flatMap(ordersOf));
	/** Orders an item of the case (not a redelivery) told to check in the platform and send with another key, and those it said may be reported sent. */
	const toldAnotherKey = new Set<string>();
	/** Orders an item skipped because an earlier execution took the key and does not know the outcome. */
	const skippedAsUnknown = new Map<string, Execution[]>();
	/** Orders an item told that its key may stay (it could not be released, or the store not asked): a later skip is what it said. */
	const toldKeyStays = new Set<string>();
	const toldMarkMayStay = new Set<string>();
	for (const execution of executions) {
		if (!ranCreate(execution)) continue;
		// A kill after Create returned (the Redis design's later steps) takes no decision back: the service refused the order for good, or may have queued it.
		if (execution.killedAtMs !== undefined && execution.results !== undefined) {
			execution.results.forEach((result, item) => {
				const order = ordersOf(execution)[item];
				const { said } = saidBy(result);
				if (said === 'unknown') unknownOrders.add(order);
				if (said === 'declined' || (said === 'notSent' && refusedForGood(result, execution, order))) refusedOrders.add(order);
			});
		}
		// n8n marks an execution its kill took as crashed, with no output: its retry judges what it left.
		if (execution.killedAtMs !== undefined) continue;
		const kind = execution.again ? ' (a fresh order after the case)' : execution.retryOf === undefined ? '' : ` (retry of ${execution.retryOf})`;
		const name = `execution ${execution.index}${kind} on process ${execution.delivery.process}`;
		if (execution.again && (execution.returnedAtMs === undefined || execution.returnedAtMs - (execution.startedAtMs ?? 0) > CALM_LIMIT_MS)) {
			problems.push(`wedge: ${name} did not end within ${CALM_LIMIT_MS / 1000} s with the service taking everything: sending is wedged`);
			continue;
		}
		if (execution.returnedAtMs === undefined) {
			problems.push(`ends: ${name} never ended${execution.cancelledAtMs === undefined ? '' : ' (its node run went on after n8n cancelled it)'}`);
			continue;
		}
		if (execution.threw !== undefined) {
			problems.push(`ends: ${name} threw: ${(execution.threw as Error).message}`);
			continue;
		}
		const results = execution.results ?? [];
		if (results.length !== ordersOf(execution).length) problems.push(`items: ${name}: ${ordersOf(execution).length} items in, ${results.length} out`);
		results.forEach((result, item) => {
			const { said, text } = saidBy(result);
			const order = ordersOf(execution)[item];
			if (!execution.again && /another key/.test(text)) toldAnotherKey.add(order);
			if (said === 'skipped' && /another key/.test(text)) skippedAsUnknown.set(order, [...(skippedAsUnknown.get(order) ?? []), execution]);
			if (/could not be released|could not check the Deduplication Key/.test(text)) toldKeyStays.add(order);
			if (!execution.again && /"sent" mark/.test(text)) toldMarkMayStay.add(order);
			const where = `${name}, item ${item} (${order})`;
			const queuedHere = record.queuedItems.get(`${execution.index}:${item}`) ?? 0;
			const requests = record.requestsCarrying(execution.index, item);
			const acted = requests.filter((request) => actedOn(request.answer)).length;
			if (queuedHere > 1) problems.push(`doubled: ${where}: the service queued it ${queuedHere} times`);
			const unlessSameContact = (problem: string) => {
				if (!pairedWithSameContact(requests, execution.index, item)) return void problems.push(problem);
				const excuse = `${problem.slice(0, problem.indexOf(':'))} (${SAME_CONTACT_REORDERED})`;
				excused.set(excuse, (excused.get(excuse) ?? 0) + 1);
			};
			if (said === 'queued' && queuedHere !== 1) unlessSameContact(`queued: ${where} says queued, but the service did not queue it`);
			if (said === 'declined' && queuedHere > 0) unlessSameContact(`declined: ${where} says the service did not queue it ("${text}"), but the service queued it`);
			if (execution.again && said === 'notSent') problems.push(`wedge: ${where} was not sent when delivered again with the service taking everything: "${text}"`);
			if (said === 'notSent' && acted > 0) problems.push(`notSent: ${where} says "${text}", but the service acted on a request that carried it`);
			if (said === 'notSent' && execution.delivery.keyed && !/run(ning)? (it|the workflow) again|re-run sends it|could not be released.*another key/i.test(text)) problems.push(`reRun: ${where} says "${text}", without saying that a re-run sends it`);
			if (said === 'declined' || (said === 'notSent' && refusedForGood(result, execution, order))) refusedOrders.add(order);
			if (said === 'unknown') {
				unknownOrders.add(order);
				if (!requests.some((request) => leftOpen(request.answer))) problems.push(`unknown: ${where} says its outcome is unknown ("${text}"), but every request that carried it was answered as not acted on: ${requests.map((request) => JSON.stringify(request.answer)).join(', ') || 'none left'}`);
			}
			if (said === 'alreadySent' && (record.queuedOrders.get(order) ?? 0) === 0 && !toldMarkMayStay.has(order)) unlessStoreLimit(order, `alreadySent: ${where} says "${text}", but the service never queued ${order}`, true);
			const waited = /waited ([\d.]+) s for the account's requests \(Max Wait Seconds\)/.exec(text);
			if (waited !== null) problems.push(...maxWaitProblems(world, execution, where));
		});
	}
	const lostOrders: string[] = [];
	const keyedQueued = new Map<string, number>();
	for (const execution of executions.filter((candidate) => candidate.delivery.keyed)) {
		ordersOf(execution).forEach((order, item) => keyedQueued.set(order, (keyedQueued.get(order) ?? 0) + (record.queuedItems.get(`${execution.index}:${item}`) ?? 0)));
	}
	for (const [order, times] of keyedQueued) {
		if (times > 1) unlessStoreLimit(order, `doubled: keyed order ${order} was queued ${times} times`);
		if (times === 0 && !unknownOrders.has(order) && !toldAnotherKey.has(order) && !refusedOrders.has(order) && !stoppedOrders.has(order)) {
			lostOrders.push(order);
			const items = executions.flatMap((execution) => ordersOf(execution).flatMap((candidate, item) => (candidate === order && execution.results?.[item] !== undefined ? [`execution ${execution.index}: "${saidBy(execution.results[item]).text}"`] : [])));
			const kept = (world.redisWorkflows?.redis.keys(`order-pending:${order}:`).length ?? 0) > 0 ? ' (its record is still kept in Redis: the redelivery had not sent it by the end of the case)' : '';
			const problem = `lost: keyed order ${order} was never queued${kept}, though no item said it was refused for good or its outcome unknown, and no user stopped it; ${items.join('; ') || 'no item'}`;
			const limit = killLimitOf(world, order) ?? redisKillLimitOf(world, order) ?? timeoutLimitOf(world, order) ?? (gaveUpBelowPace(world, order) ? MAX_WAIT_BELOW_PACE : undefined);
			if (limit === undefined) unlessStoreLimit(order, problem, true);
			else excused.set(`lost (${limit})`, (excused.get(`lost (${limit})`) ?? 0) + 1);
		}
	}
	// An item skipped as taken by an execution that does not know the outcome is so only where a request carrying it may have reached the service.
	for (const [order, skippers] of skippedAsUnknown) {
		if ((keyedQueued.get(order) ?? 0) > 0 || stoppedOrders.has(order) || toldKeyStays.has(order) || record.requests.some((request) => (leftOpen(request.answer) || request.lostAtKill === true) && request.carried.some((carried) => carried.order === order))) continue;
		const problem = `unknown: keyed order ${order} was left to a person (check the platform, send it with another key), though no request that carried it may have reached the service`;
		const limit = killLimitOf(world, order) ?? (record.lostAnswerOrders.has(order) ? LOST_STORE_ANSWER : skippers.every((skipper) => heldElsewhere(world, order, skipper)) ? HELD_ELSEWHERE : undefined);
		if (limit === undefined) unlessStoreLimit(order, problem, true, false);
		else excused.set(`unknown (${limit})`, (excused.get(`unknown (${limit})`) ?? 0) + 1);
	}
	for (const { order, problem } of keyFreeProblems(world)) unlessStoreLimit(order, problem);
	problems.push(...bulkProblems(world));
	for (const execution of executions.filter((candidate) => candidate.killedAtMs === undefined && ranCreate(candidate))) problems.push(...overdueProblems(world, execution));
	problems.push(...pauseProblems(world), ...probeProblems(world));
	const heldMs = world.heldThread.longestOverLimitMs;
	if (heldMs !== undefined) problems.push(`held: one step held the thread ${Math.round(heldMs)} ms, V8's pauses left out (at most ${HELD_LIMIT_MS} ms): n8n's timers could not fire meanwhile`);
	const skipped = new Set((process.env.SIMULATION_SKIP ?? '').split(',').filter(Boolean));
	const keyedOrdersAcrossProcesses = world.simulated.processes < 2 ? 0 : new Set(world.simulated.deliveries.filter((delivery) => delivery.keyed).flatMap((delivery) => delivery.orders)).size;
	const codeFaults = { drawn: world.simulated.codeFaults.length, fired: world.codeFaultsFired.length };
	return { problems: problems.filter((problem) => !skipped.has(problem.slice(0, problem.indexOf(':')))), excused, keyedOrdersAcrossProcesses, codeFaults, positions: positionsOf(world), lostOrders };
}

/**
 * Whether a report in reverse order gave the item the entry of another transaction of the same
 * contact (the same order delivered twice): the entries cannot be told apart.
 */
function pairedWithSameContact(requests: readonly RequestRecord[], delivery: number, item: number): boolean {
	return requests.some(({ answer, carried }) => {
		if (answer.kind !== 'reordered') return false;
		const position = carried.findIndex((one) => one.delivery === delivery && one.item === item);
		const mirrored = carried[carried.length - 1 - position];
		return mirrored !== undefined && mirrored.order === carried[position].order;
	});
}

/**
 * Where a kill left an order's outcome unknown to n8n: a request carrying it was under way, or a
 * claim of the killed life had begun to record its key, which the life did not live to settle
 * (its request had not left, or it was refused and the key not yet given back). Its redelivery is
 * skipped, saying so.
 */
function killLimitOf(world: World, order: string): string | undefined {
	const { requests, kills, claimsBegun } = world.record;
	if (requests.some((request) => request.lostAtKill === true && request.carried.some((carried) => carried.order === order))) return UNDER_WAY_AT_KILL;
	return kills.some(({ process, life }) => claimsBegun.get(`${process}/${life}`)?.has(order) === true) ? RECORDED_AT_KILL : undefined;
}

/**
 * A one-order execution never rides in a bulk's request: one that carries more than
 * `BULK_ORDERS` transactions of another execution (a bulk whose other orders left it, their keys
 * taken by another delivery, is small again).
 */
function bulkProblems(world: World): string[] {
	const sizeOf = (delivery: number) => world.executions[delivery].delivery.orders.length;
	const problems: string[] = [];
	for (const request of world.record.requests) {
		const carriedOf = new Map<number, number>();
		for (const { delivery } of request.carried) carriedOf.set(delivery, (carriedOf.get(delivery) ?? 0) + 1);
		const single = [...carriedOf.keys()].find((delivery) => sizeOf(delivery) === 1);
		const bulk = [...carriedOf].find(([delivery, count]) => delivery !== single && count > BULK_ORDERS);
		if (single !== undefined && bulk !== undefined) problems.push(`bulk: request ${request.number} carried one-order execution ${single} with ${bulk[1]} transactions of bulk execution ${bulk[0]}`);
	}
	return problems;
}

/** Items whose text says their key may stay: the store could not release it, could not be asked, or another execution held it. */
const MAY_STAY = /could not be released|could not check the Deduplication Key|another execution of this node was sending/;

/**
 * A keyed item not sent, whose message says a re-run sends it, leaves its key free in n8n's store once
 * the case settled, unless a delivery of the order may hold it: another one queued it, or its
 * outcome is unknown, or it never ended, or an item of the order says its key may stay.
 */
function keyFreeProblems(world: World): Array<{ order: string; problem: string }> {
	const left = new Set(world.entriesAfterCase);
	const problems: Array<{ order: string; problem: string }> = [];
	const keyed = world.executions.filter((execution) => !execution.again && execution.delivery.keyed && !execution.delivery.dryRun && ranCreate(execution));
	const itemsOf = (order: string) => keyed.flatMap((execution) => ordersOf(execution).flatMap((candidate, item) => (candidate === order ? [{ execution, result: execution.results?.[item] }] : [])));
	const mayHold = (order: string, except: Execution) =>
		itemsOf(order).some(({ execution, result }) => {
			if (result === undefined) return execution.returnedAtMs === undefined;
			const { said, text } = saidBy(result);
			return MAY_STAY.test(text) || (execution !== except && said !== 'notSent' && said !== 'declined');
		});
	for (const execution of keyed) {
		(execution.results ?? []).forEach((result, item) => {
			const order = ordersOf(execution)[item];
			const { said, text } = saidBy(result);
			if (said !== 'notSent' || !keyTaken((entry) => left.has(entry), order) || mayHold(order, execution)) return;
			problems.push({ order, problem: `keyFree: execution ${execution.index}, item ${item} (${order}) says "${text}", but its key stayed in n8n's store` });
		});
	}
	return problems;
}
