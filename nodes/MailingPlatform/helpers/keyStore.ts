import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { monotonicMs } from '../transport/accountGate';

/**
 * n8n's deduplication store for one node, safe within a process. The store reads a node's whole
 * history row, changes it and writes it back with no lock, so two calls at once lose one's
 * change, and two first calls collide on inserting the row. Here every call for one workflow's
 * node waits its turn in this process, calls of one kind waiting together go as one (a group
 * commit: a call goes as soon as the one before it ended, taking whatever arrived meanwhile),
 * and a first-use collision with another process is tried again. Each call costs n8n's one
 * thread a read, parse, rewrite and write of the whole row, so the node's calls start at least a
 * time apart that follows the row's size (`MAX_GATHER_MS` at `FULL_ROW_ENTRIES`), what arrives
 * meanwhile gathering: hardly at all where the row is small, a short gathering of the claims of a
 * steady stream where it is full, none after a call that took that long itself (a loaded
 * machine). A lone call goes at once. The row's size is asked of n8n once
 * per node and process, then counted on from the calls' answers. Confirmations of keys (`confirm`) ride the next call of the node and go
 * alone only when none comes within `RIDE_WAIT_MS`.
 */

type Waiting = {
	kind: 'record' | 'remove';
	/** The call may go from this moment on (of `monotonicMs`), with another call of its kind... */
	notBeforeMs: number;
	/** ...and from this moment on also alone. */
	aloneFromMs: number;
	keys: readonly string[];
	context: IExecuteFunctions;
	options: ICheckProcessedOptions;
	done: (recordedBefore: Set<string>) => void;
	failed: (error: unknown) => void;
};

/**
 * The least time between the starts of a node's calls on a row of `FULL_ROW_ENTRIES` entries or
 * more (the default history size's keys and marks): at 20 orders a second, four claims share a
 * rewrite of it, each waiting 0.1 s on average; a smaller row's in proportion.
 */
const MAX_GATHER_MS = 200;
const FULL_ROW_ENTRIES = 20_000;
/** How long a confirmation waits for another call of the node to ride before it goes alone. */
const RIDE_WAIT_MS = 200;

/** What this process knows of each workflow's node's row; kept while the process lives, three numbers per node. */
interface RowState {
	/** When the node's last call started (of `monotonicMs`). */
	lastStartedMs?: number;
	/** About how many entries the row holds: n8n's count at the first call, and this process's changes since. */
	entries: number;
	/** How many entries this process's calls added. */
	added: number;
}
const rows = new Map<string, RowState>();

/** The node's row as this process knows it; at the node's first call, n8n is asked how many entries it holds. */
async function rowOf(id: string, { context, options }: Waiting): Promise<RowState> {
	let row = rows.get(id);
	if (row === undefined) {
		const entries = await context.helpers.getProcessedDataCount('node', options).catch(() => 0);
		row = rows.get(id) ?? { entries, added: 0 };
		rows.set(id, row);
	}
	return row;
}

/** The calls waiting for one workflow's node, and how to wake its worker when a call arrives. */
interface Queue {
	calls: Waiting[];
	wake: () => void;
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

/** The first waiting call that may go, once there is one and the gathering since the node's last call started has passed. */
async function firstDue(row: RowState, queue: Queue): Promise<Waiting> {
	for (;;) {
		const now = monotonicMs();
		const gatherMs = MAX_GATHER_MS * Math.min(1, row.entries / FULL_ROW_ENTRIES);
		const gatheredMs = row.lastStartedMs === undefined ? now : row.lastStartedMs + gatherMs;
		const due = now >= gatheredMs ? queue.calls.find((waiting) => waiting.aloneFromMs <= now) : undefined;
		if (due !== undefined) return due;
		const firstAloneMs = queue.calls.reduce((first, waiting) => Math.min(first, waiting.aloneFromMs), Number.POSITIVE_INFINITY);
		await Promise.race([sleep(Math.max(gatheredMs, firstAloneMs) - now), new Promise<void>((resolve) => (queue.wake = resolve))]);
		queue.wake = () => {};
	}
}

/** Calls one after the other; waiting calls of one kind and options go as one. */
async function workOff(id: string, waitingCalls: Queue): Promise<void> {
	const queue = waitingCalls.calls;
	const row = await rowOf(id, queue[0]);
	while (queue.length > 0) {
		const first = await firstDue(row, waitingCalls);
		// Every waiting call of its kind that may go goes with it, not only the next ones: claims of
		// new orders and confirmations of sent ones share one rewrite of the row.
		// Calls of one key never wait together (`hold`), so their order among other keys' calls is free.
		const startedMs = monotonicMs();
		row.lastStartedMs = startedMs;
		const together = (waiting: Waiting) => waiting.kind === first.kind && waiting.options.maxEntries === first.options.maxEntries && waiting.notBeforeMs <= startedMs;
		const batch = queue.filter(together);
		let left = 0;
		for (const waiting of queue) if (!together(waiting)) queue[left++] = waiting;
		queue.length = left;
		const keys = [...new Set(batch.flatMap((waiting) => waiting.keys))];
		try {
			const recordedBefore = await storeCall(batch, keys);
			const added = first.kind === 'record' ? keys.length - recordedBefore.size : 0;
			row.added += added;
			row.entries = Math.max(0, Math.min(first.options.maxEntries ?? Number.POSITIVE_INFINITY, row.entries + (first.kind === 'record' ? added : -keys.length)));
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
	queues.delete(id);
}

/** The keys executions of this process are sending, per workflow and node, each with the promise of its outcome. */
const sending = new Map<string, Promise<void>>();

/**
 * Takes `keys` for this execution once no other execution of this process holds any of them, and
 * answers how to give them back: a second delivery of an order waits for the first's outcome, so
 * it is skipped only once the order was queued, and sent if the first was refused. All keys are
 * taken at once, so two executions cannot wait for each other.
 */
async function hold(nodeId: string, keys: readonly string[]): Promise<() => void> {
	const ids = keys.map((key) => JSON.stringify([nodeId, key]));
	for (;;) {
		const busy = new Set(ids.flatMap((id) => sending.get(id) ?? []));
		if (busy.size === 0) break;
		await Promise.all(busy);
	}
	let settle = () => {};
	const settled = new Promise<void>((resolve) => (settle = resolve));
	for (const id of ids) sending.set(id, settled);
	return () => {
		for (const id of ids) sending.delete(id);
		settle();
	};
}

/** Each node run's workflow and node, read once: n8n's `getNode()` copies the node with all its parameters. */
const nodeIds = new WeakMap<IExecuteFunctions, string>();

function nodeIdOf(context: IExecuteFunctions): string {
	let id = nodeIds.get(context);
	if (id === undefined) nodeIds.set(context, (id = JSON.stringify([context.getWorkflow().id, context.getNode().id])));
	return id;
}

function enqueue(context: IExecuteFunctions, kind: Waiting['kind'], keys: readonly string[], maxEntries: number, notBeforeMs: number, aloneFromMs: number): Promise<Set<string>> {
	if (keys.length === 0) return Promise.resolve(new Set());
	const id = nodeIdOf(context);
	return new Promise((done, failed) => {
		const waiting: Waiting = { kind, notBeforeMs, aloneFromMs, keys, context, options: { mode: 'entries', maxEntries }, done, failed };
		const queue = queues.get(id);
		if (queue !== undefined) {
			queue.calls.push(waiting);
			queue.wake();
			return;
		}
		const fresh: Queue = { calls: [waiting], wake: () => {} };
		queues.set(id, fresh);
		void workOff(id, fresh);
	});
}

/** This node's history of entries, at most `maxEntries` of them (the oldest go first). */
export function keyStore(context: IExecuteFunctions, maxEntries: number) {
	return {
		/** Records the entries and answers those recorded already. */
		record: async (keys: readonly string[]) => await enqueue(context, 'record', keys, maxEntries, monotonicMs(), monotonicMs()),
		/** Records the entries again from `fromMs` on (of `monotonicMs`), with the node's next call, and answers those that were still recorded. */
		confirm: async (keys: readonly string[], fromMs: number) => await enqueue(context, 'record', keys, maxEntries, fromMs, fromMs + RIDE_WAIT_MS),
		/** Removes the entries, from `fromMs` on (of `monotonicMs`; at once without it). */
		remove: async (keys: readonly string[], fromMs = monotonicMs()) => {
			await enqueue(context, 'remove', keys, maxEntries, fromMs, fromMs);
		},
		hold: async (keys: readonly string[]) => await hold(nodeIdOf(context), keys),
		/** How many entries this process's calls have added to the history so far: once `maxEntries` more, an entry may have been dropped. */
		added: () => rows.get(nodeIdOf(context))?.added ?? 0,
		maxEntries,
	};
}

/** Resolves once no call of the store waits in this process and no key is held, e.g. between the cases of a test, as at a restart of n8n. */
export async function keyStoreIdle(): Promise<void> {
	while (queues.size > 0 || sending.size > 0) await sleep(10);
}
