import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { monotonicMs } from '../transport/accountGate';
import type { HoldLimit } from './keyHolds';
import { hold, keysHeld } from './keyHolds';
import { nodeOf } from './parameters';

/**
 * n8n's deduplication store for one node, safe within a process. The store reads a node's whole
 * history row, changes it and writes it back with no lock, so two calls at once lose one's
 * change, and two first calls collide on inserting the row. Here every call for one workflow's
 * node waits its turn in this process, calls of one kind waiting together go as one (a group
 * commit: a call goes as soon as the one before it ended, taking whatever arrived meanwhile),
 * and a first-use collision with another process is tried again. A claim goes at once: holding
 * it back for other orders to share its rewrite of the row would buy n8n's CPU with the
 * execution's time. Confirmations of keys (`confirm`) ride the node's next call and go alone
 * only when none comes within `RIDE_WAIT_MS`.
 */

type Waiting = {
	kind: 'record' | 'remove';
	/** The call may go from this moment on (of `monotonicMs`), with another call of its kind... */
	notBeforeMs: number;
	/** ...and from this moment on also alone. */
	aloneFromMs: number;
	/** A call that cannot start by this moment fails unmade (a removal round that would come too late to be of use). */
	latestStartMs: number;
	keys: readonly string[];
	context: IExecuteFunctions;
	options: ICheckProcessedOptions;
	done: (recordedBefore: Set<string>) => void;
	failed: (error: unknown) => void;
};

/** How long a confirmation waits for another call of the node to ride before it goes alone. */
const RIDE_WAIT_MS = 200;

/** How many entries each workflow's node's calls in this process added to its row, while the process lives. */
const addedEntries = new Map<string, number>();

/** The calls waiting for one workflow's node, and how to wake its worker when a call arrives that may go before it would wake. */
interface Queue {
	calls: Waiting[];
	wake: () => void;
	/** When the sleeping worker wakes by itself (of `monotonicMs`): a later confirmation round need not wake it. */
	sleepsUntilMs: number;
}

/** The queues, per workflow and node; a queue is present while it is being worked off. */
const queues = new Map<string, Queue>();

/** The row already existed when this call inserted it: another process's first call came first. */
const INSERT_COLLISION = /unique constraint|duplicate key|duplicate entry/i;
const COLLISION_ATTEMPTS = 4;

async function storeCall(batch: readonly Waiting[], keys: string[]): Promise<Set<string>> {
	const [{ kind, context, options }] = batch;
	let failure: unknown;
	for (let attempt = 1; attempt <= COLLISION_ATTEMPTS; attempt++) {
		if (attempt > 1) await sleep(10 * attempt);
		try {
			if (kind === 'remove') {
				await context.helpers.removeProcessed(keys, 'node', options);
				return new Set();
			}
			const { processed } = await context.helpers.checkProcessedAndRecord(keys, 'node', options);
			return new Set(processed.map(String));
		} catch (error) {
			failure = error;
			// A collision inserted nothing, so the call can simply go again; the row is there now.
			if (!INSERT_COLLISION.test((error as Error).message)) break;
		}
	}
	throw failure;
}

/** The first waiting call that may go: one that may go alone, taking with it those that may ride. */
async function firstDue(queue: Queue): Promise<Waiting> {
	for (;;) {
		const now = monotonicMs();
		const due = queue.calls.find((waiting) => waiting.aloneFromMs <= now);
		if (due !== undefined) return due;
		const firstAloneMs = queue.calls.reduce((first, waiting) => Math.min(first, waiting.aloneFromMs), Number.POSITIVE_INFINITY);
		// Whole milliseconds, at least one: a timer rounds a fraction down, and the wait would end before its moment.
		const sleepMs = Math.max(1, Math.ceil(firstAloneMs - now));
		queue.sleepsUntilMs = now + sleepMs;
		await Promise.race([sleep(sleepMs), new Promise<void>((resolve) => (queue.wake = resolve))]);
		queue.wake = () => {};
		queue.sleepsUntilMs = Number.POSITIVE_INFINITY;
	}
}

/**
 * Calls one after the other; waiting calls of one kind and options go as one. A fault of this
 * code fails the calls waiting and ends the queue, so that the node's next call starts a new one:
 * a queue left behind would hold every later call of the node for the process's life.
 */
async function workOff(id: string, waitingCalls: Queue): Promise<void> {
	try {
		await workOffCalls(id, waitingCalls);
	} catch (fault) {
		for (const waiting of waitingCalls.calls.splice(0)) waiting.failed(fault);
		queues.delete(id);
	}
}

/** Fails, unmade, the waiting calls that can no longer start in time; answers them. */
function failLateCalls(queue: Waiting[], nowMs: number): Waiting[] {
	const late = queue.filter((waiting) => waiting.latestStartMs < nowMs);
	if (late.length === 0) return late;
	let left = 0;
	for (const waiting of queue) if (waiting.latestStartMs >= nowMs) queue[left++] = waiting;
	queue.length = left;
	for (const waiting of late) waiting.failed(new Error(`n8n's store was busy for longer than the call could wait`));
	return late;
}

async function workOffCalls(id: string, waitingCalls: Queue): Promise<void> {
	const queue = waitingCalls.calls;
	while (queue.length > 0) {
		const first = await firstDue(waitingCalls);
		if (failLateCalls(queue, monotonicMs()).includes(first)) continue;
		// Every waiting call of its kind that may go goes with it, not only the next ones: claims of
		// new orders and confirmations of sent ones share one rewrite of the row.
		// Calls of one key never wait together (`hold`), so their order among other keys' calls is free.
		const startedMs = monotonicMs();
		const together = (waiting: Waiting) => waiting.kind === first.kind && waiting.options.maxEntries === first.options.maxEntries && waiting.notBeforeMs <= startedMs;
		const batch = queue.filter(together);
		let left = 0;
		for (const waiting of queue) if (!together(waiting)) queue[left++] = waiting;
		queue.length = left;
		const keys = [...new Set(batch.flatMap((waiting) => waiting.keys))];
		try {
			const recordedBefore = await storeCall(batch, keys);
			if (first.kind === 'record') addedEntries.set(id, (addedEntries.get(id) ?? 0) + keys.length - recordedBefore.size);
			// Within one call, a key is new for the first that asks and recorded for the others.
			for (const waiting of batch) {
				const mine = new Set<string>();
				for (const key of waiting.keys) if (recordedBefore.has(key)) mine.add(key);
				for (const key of waiting.keys) recordedBefore.add(key);
				waiting.done(mine);
			}
		} catch (error) {
			for (const waiting of batch) waiting.failed(error);
		}
	}
	// At once, as the last call is answered: a call that arrives later starts a new queue.
	queues.delete(id);
}

/** Each node run's workflow and node, read once. */
const nodeIds = new WeakMap<IExecuteFunctions, string>();

function nodeIdOf(context: IExecuteFunctions): string {
	let id = nodeIds.get(context);
	if (id === undefined) nodeIds.set(context, (id = JSON.stringify([context.getWorkflow().id, nodeOf(context).id])));
	return id;
}

function enqueue(
	context: IExecuteFunctions,
	kind: Waiting['kind'],
	keys: readonly string[],
	maxEntries: number,
	notBeforeMs: number,
	aloneFromMs: number,
	latestStartMs = Number.POSITIVE_INFINITY,
): Promise<Set<string>> {
	if (keys.length === 0) return Promise.resolve(new Set());
	const id = nodeIdOf(context);
	return new Promise((done, failed) => {
		const waiting: Waiting = { kind, notBeforeMs, aloneFromMs, latestStartMs, keys, context, options: { mode: 'entries', maxEntries }, done, failed };
		const queue = queues.get(id);
		if (queue !== undefined) {
			queue.calls.push(waiting);
			if (aloneFromMs < queue.sleepsUntilMs) queue.wake();
			return;
		}
		const fresh: Queue = { calls: [waiting], wake: () => {}, sleepsUntilMs: Number.POSITIVE_INFINITY };
		queues.set(id, fresh);
		void workOff(id, fresh);
	});
}

/** This node's history of entries, at most `maxEntries` of them (the oldest go first). */
export function keyStore(context: IExecuteFunctions, maxEntries: number) {
	return {
		/** Records the entries of a leaving request and answers those recorded already. */
		record: async (keys: readonly string[]) => await enqueue(context, 'record', keys, maxEntries, monotonicMs(), monotonicMs()),
		/** Records the entries again from `fromMs` on (of `monotonicMs`), with the node's next call, and answers those that were still recorded. */
		confirm: async (keys: readonly string[], fromMs: number) => await enqueue(context, 'record', keys, maxEntries, fromMs, fromMs + RIDE_WAIT_MS),
		/** Removes the entries, from `fromMs` on (of `monotonicMs`; at once without it), failing unmade if it cannot start by `latestStartMs`. */
		remove: async (keys: readonly string[], fromMs = monotonicMs(), latestStartMs?: number) => {
			await enqueue(context, 'remove', keys, maxEntries, fromMs, fromMs, latestStartMs);
		},
		hold: async (keys: readonly string[], limit: HoldLimit) => await hold(nodeIdOf(context), keys, limit),
		/** How many entries this process's calls have added to the history so far: once `maxEntries` more, an entry may have been dropped. */
		added: () => addedEntries.get(nodeIdOf(context)) ?? 0,
		maxEntries,
	};
}

/** One node's store, as `keyStore` gives it. */
export type KeyStore = ReturnType<typeof keyStore>;

/** Resolves once no call of the store waits in this process and no key is held, e.g. between the cases of a test, as at a restart of n8n. */
export async function keyStoreIdle(): Promise<void> {
	while (queues.size > 0 || keysHeld() > 0) await sleep(10);
}
