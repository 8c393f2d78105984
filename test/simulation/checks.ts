/**
 * The promise Create keeps, read off a simulated case (the service's record, n8n's store and
 * each item's output), whatever struck and wherever:
 * - every execution ends, each input item as exactly one output item;
 * - an item says queued only where the service queued it; "not sent" only where no request that
 *   carried it was acted on, saying that a re-run sends it; outcome unknown only where its bytes
 *   may have been acted on; "already sent" only for an order the service queued;
 * - an item is "not sent" for Max Wait Seconds only once it waited that long, its own requests' time not counted;
 * - a keyed order is queued at most once (across processes only n8n's store's documented limit, an
 *   overlapping write that lost a change of its key, excuses a second time), and after the
 *   redelivery once, unless an item said its outcome is unknown;
 * - nothing is left after the case: every redelivery ends at once, as a fresh order does;
 * - a one-order execution's transaction never rides in a request with more than 10 of another's;
 * - no step of the case held the thread longer than `HELD_LIMIT_MS`: n8n's timers fire on time;
 * - an execution waited for other orders to gather at most `GATHER_LIMIT_MS` before each
 *   recording call of its process's store while it ran (each gathering ends in a request's
 *   claim), and once more before it was given up.
 */
import type { ItemResult } from '../../nodes/MailingPlatform/helpers/itemResults';
import { ACTED } from './model';
import { HELD_LIMIT_MS } from './heldThread';
import type { Execution, World } from './world';
import { REDELIVERY_LIMIT_MS } from './world';

/** The longest gathering before a request (the key store's `MAX_GATHER_MS`), and the hint's rounding to 0.1 s. */
const GATHER_LIMIT_MS = 200 + 50;
const GATHERED = "orders arriving meanwhile were gathered";

/** An execution with more orders than this is a bulk, whose requests a one-order execution must not ride in. */
export const BULK_ORDERS = 10;

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

/**
 * Every problem the case shows, each a sentence naming the execution and item after the name of
 * its check (`doubled: …`); SIMULATION_SKIP may name checks to leave out, so that a search goes on
 * past a problem already known.
 */
export function problemsOf(world: World): string[] {
	const problems: string[] = [];
	const { record, executions } = world;
	const unknownOrders = new Set<string>();
	/** Orders an item of the case (not a redelivery) told to check in the platform and send with another key, and those it said may be reported sent. */
	const toldAnotherKey = new Set<string>();
	const toldMarkMayStay = new Set<string>();
	for (const execution of executions) {
		const name = `execution ${execution.index}${execution.again ? ' (redelivery)' : ''} on process ${execution.delivery.process}`;
		if (execution.again && (execution.returnedAtMs === undefined || execution.returnedAtMs - (execution.startedAtMs ?? 0) > REDELIVERY_LIMIT_MS)) {
			problems.push(`wedge: ${name} did not end within ${REDELIVERY_LIMIT_MS / 1000} s of a redelivery with the service taking everything: sending is wedged`);
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
			if (!execution.again && /"sent" mark/.test(text)) toldMarkMayStay.add(order);
			const where = `${name}, item ${item} (${order})`;
			const queuedHere = record.queuedItems.get(`${execution.index}:${item}`) ?? 0;
			const requests = record.requestsCarrying(execution.index, item);
			const acted = requests.filter((request) => ACTED[request.answer]).length;
			if (queuedHere > 1) problems.push(`doubled: ${where}: the service queued it ${queuedHere} times`);
			if (said === 'queued' && queuedHere !== 1) problems.push(`queued: ${where} says queued, but the service did not queue it`);
			if (execution.again && said === 'notSent') problems.push(`wedge: ${where} was not sent when delivered again with the service taking everything: "${text}"`);
			if (said === 'notSent' && acted > 0) problems.push(`notSent: ${where} says "${text}", but the service acted on a request that carried it`);
			if (said === 'notSent' && execution.delivery.keyed && !/run(ning)? (it|the workflow) again|re-run sends it|could not be released.*another key/i.test(text)) problems.push(`reRun: ${where} says "${text}", without saying that a re-run sends it`);
			if (said === 'unknown') {
				unknownOrders.add(order);
				if (acted === 0) problems.push(`unknown: ${where} says its outcome is unknown ("${text}"), but no request that carried it reached the service: ${requests.map((request) => request.answer).join(', ') || 'none left'}`);
			}
			if (said === 'alreadySent' && (record.queuedOrders.get(order) ?? 0) === 0 && !toldMarkMayStay.has(order) && !record.storeLimitKeys.has(order)) problems.push(`alreadySent: ${where} says "${text}", but the service never queued ${order}`);
			const waited = /waited ([\d.]+) s for the account's requests \(Max Wait Seconds\)/.exec(text);
			if (waited !== null) problems.push(...maxWaitProblems(world, execution, where));
		});
	}
	const keyedQueued = new Map<string, number>();
	for (const execution of executions.filter((candidate) => candidate.delivery.keyed)) {
		ordersOf(execution).forEach((order, item) => keyedQueued.set(order, (keyedQueued.get(order) ?? 0) + (record.queuedItems.get(`${execution.index}:${item}`) ?? 0)));
	}
	for (const [order, times] of keyedQueued) {
		if (record.storeLimitKeys.has(order)) continue;
		if (times > 1) problems.push(`doubled: keyed order ${order} was queued ${times} times`);
		if (times === 0 && !unknownOrders.has(order) && !toldAnotherKey.has(order)) {
			const items = executions.flatMap((execution) => ordersOf(execution).flatMap((candidate, item) => (candidate === order && execution.results?.[item] !== undefined ? [`execution ${execution.index}: "${saidBy(execution.results[item]).text}"`] : [])));
			problems.push(`lost: keyed order ${order} was never queued, though no item said its outcome was unknown and it was delivered again; ${world.store.entries.includes(order) ? 'its key is in the store' : 'its key is not in the store'}; ${items.join('; ')}`);
		}
	}
	problems.push(...bulkProblems(world));
	for (const execution of executions) problems.push(...gatheredProblems(world, execution));
	const heldMs = world.heldThread.longestOverLimitMs;
	if (heldMs !== undefined) problems.push(`held: one step held the thread ${Math.round(heldMs)} ms, V8's pauses left out (at most ${HELD_LIMIT_MS} ms): n8n's timers could not fire meanwhile`);
	const skipped = new Set((process.env.SIMULATION_SKIP ?? '').split(',').filter(Boolean));
	return problems.filter((problem) => !skipped.has(problem.slice(0, problem.indexOf(':'))));
}

/** The execution's hint names the time it waited for orders to gather: no more than before each claim of its process meanwhile, and before it was given up. */
function gatheredProblems(world: World, execution: Execution): string[] {
	const text = execution.hints.find((hint) => hint.includes(GATHERED));
	if (text === undefined) return [];
	const seconds = new RegExp(`([\\d.]+) s because ${GATHERED}`).exec(text) ?? new RegExp(`^Waited ([\\d.]+) s for the account's requests because ${GATHERED}`).exec(text);
	const gatheredMs = Number(seconds?.[1]) * 1000;
	const { startedAtMs = 0, returnedAtMs = 0 } = execution;
	const recordings = world.record.recordingsAtMs.filter(({ process, atMs }) => process === execution.delivery.process && atMs >= startedAtMs && atMs <= returnedAtMs).length;
	const limitMs = GATHER_LIMIT_MS * (recordings + 1);
	return gatheredMs <= limitMs ? [] : [`gathered: execution ${execution.index} waited ${gatheredMs} ms for orders to gather, over ${limitMs} ms for its process's ${recordings} recording store calls meanwhile: "${text}"`];
}

/** An execution's time waiting for the account: from its start to its end, less the time a request carrying its transactions was under way. */
function maxWaitProblems(world: World, execution: Execution, where: string): string[] {
	const ownRequests = world.record.requests.filter((request) => request.carried.some((carried) => carried.delivery === execution.index));
	let underWayMs = 0;
	let coveredUntil = Number.NEGATIVE_INFINITY;
	for (const request of [...ownRequests].sort((a, b) => a.sentAtMs - b.sentAtMs)) {
		const end = request.answeredAtMs ?? request.sentAtMs;
		const start = Math.max(request.sentAtMs, coveredUntil);
		if (end > start) underWayMs += end - start;
		coveredUntil = Math.max(coveredUntil, end);
	}
	const waitedMs = (execution.returnedAtMs ?? 0) - (execution.startedAtMs ?? 0) - underWayMs;
	const limitMs = execution.delivery.maxWaitSeconds * 1000;
	return waitedMs + 1 < limitMs ? [`maxWait: ${where} was given up for Max Wait Seconds (${execution.delivery.maxWaitSeconds} s) after waiting ${waitedMs} ms beside its own requests`] : [];
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
