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
 * and a first-use collision with another process is tried again. Each call costs n8n's one
 * thread a read, parse, rewrite and write of the whole row. So where the row is large, claims
 * are gathered before their orders' request is chosen (`gatherInMs`, asked by the account's
 * sender): orders arriving meanwhile join one request and one rewrite. A gathering that caught
 * no other order bought nothing (orders delivered one after the other), so the next claims go
 * at once, for longer after each such gathering. The row's size is asked of n8n once per node
 * and process, then counted on from the calls' answers. Confirmations of keys (`confirm`) ride
 * the next call of the node and go alone only when none comes within `RIDE_WAIT_MS`; they and
 * removals keep the gathering's spacing from the node's last call, claims go at once.
 */

type Waiting = {
	kind: 'record' | 'remove';
	/** An order's claim as its request leaves: it goes at once, the gathering having been the sender's. */
	claim: boolean;
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

/**
 * The least time between the starts of a node's calls on a row of `FULL_ROW_ENTRIES` entries or
 * more (the default history size's keys and marks): at 20 orders a second, four orders share a
 * request and a rewrite of it, each waiting 0.1 s on average; a smaller row's in proportion.
 */
const MAX_GATHER_MS = 200;
const FULL_ROW_ENTRIES = 20_000;
/** After a gathering that caught no other order, this many claims go at once, doubled for each such gathering in a row up to `MOST_CLAIMS_UNGATHERED`. */
const FIRST_CLAIMS_UNGATHERED = 4;
const MOST_CLAIMS_UNGATHERED = 256;
/** How long a confirmation waits for another call of the node to ride before it goes alone. */
const RIDE_WAIT_MS = 200;

/** What this process knows of each workflow's node's row; kept while the process lives, a few numbers per node. */
interface RowState {
	/** When the node's last call started (of `monotonicMs`). */
	lastStartedMs?: number;
	/** When its last call with orders' claims started: gathering counts from it, so that confirmations and removals going alone never make a waiting order wait again. */
	lastClaimsStartedMs?: number;
	/** About how many entries the row holds: n8n's count at the first call, and this process's changes since. */
	entries: number;
	/** How many entries this process's calls added. */
	added: number;
	/** A claim was told to gather: the next claims' call shows whether other orders came meanwhile. */
	gathering: boolean;
	/** Gatherings in a row that caught no other order. */
	fruitless: number;
	/** Claims' calls to go at once before a claim gathers again. */
	ungathered: number;
}
const rows = new Map<string, RowState>();

/** The node's row as this process knows it; at the node's first call, n8n is asked how many entries it holds. */
async function rowOf(id: string, { context, options }: Waiting): Promise<RowState> {
	let row = rows.get(id);
	if (row === undefined) {
		let entries = 0;
		try {
			entries = await context.helpers.getProcessedDataCount('node', options);
		} catch {
			// Not told: gathered as a small row is, which costs a little CPU, never time.
		}
		row = rows.get(id) ?? { entries, added: 0, gathering: false, fruitless: 0, ungathered: 0 };
		rows.set(id, row);
	}
	return row;
}

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

const gatherMsOf = (row: RowState) => MAX_GATHER_MS * Math.min(1, row.entries / FULL_ROW_ENTRIES);

/** The first waiting call that may go: a claim at once, another once the gathering since the node's last call started has passed. */
async function firstDue(row: RowState, queue: Queue): Promise<Waiting> {
	for (;;) {
		const now = monotonicMs();
		const gatheredMs = row.lastStartedMs === undefined ? now : row.lastStartedMs + gatherMsOf(row);
		const due = queue.calls.find((waiting) => waiting.aloneFromMs <= now && (waiting.claim || now >= gatheredMs));
		if (due !== undefined) return due;
		const firstAloneMs = queue.calls.reduce((first, waiting) => Math.min(first, waiting.aloneFromMs), Number.POSITIVE_INFINITY);
		// Whole milliseconds, at least one: a timer rounds a fraction down, and the wait would end before its moment.
		const sleepMs = Math.max(1, Math.ceil(Math.max(gatheredMs, firstAloneMs) - now));
		queue.sleepsUntilMs = now + sleepMs;
		await Promise.race([sleep(sleepMs), new Promise<void>((resolve) => (queue.wake = resolve))]);
		queue.wake = () => {};
		queue.sleepsUntilMs = Number.POSITIVE_INFINITY;
	}
}

/** Whether gathering pays: a call of several orders' claims says so; one that a gathering left alone says not, for a while. */
function learnFromClaims(row: RowState, claims: number, startedMs: number): void {
	if (claims === 0) return;
	row.lastClaimsStartedMs = startedMs;
	if (claims > 1) {
		row.fruitless = 0;
		row.ungathered = 0;
	} else if (row.gathering) {
		row.fruitless++;
		row.ungathered = Math.min(MOST_CLAIMS_UNGATHERED, FIRST_CLAIMS_UNGATHERED * 2 ** (row.fruitless - 1));
	} else if (row.ungathered > 0) row.ungathered--;
	row.gathering = false;
}

/**
 * How long an order's claim should wait for others to gather, before its request is chosen: the
 * rest of the gathering since the node's last call of claims started, unless that has passed,
 * the row is small, or gatherings lately caught no other order.
 */
function gatherInMs(id: string): number {
	const row = rows.get(id);
	if (row?.lastClaimsStartedMs === undefined || row.ungathered > 0) return 0;
	const restMs = row.lastClaimsStartedMs + gatherMsOf(row) - monotonicMs();
	if (restMs <= 0) return 0;
	row.gathering = true;
	return restMs;
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
	const row = await rowOf(id, queue[0]);
	while (queue.length > 0) {
		const first = await firstDue(row, waitingCalls);
		if (failLateCalls(queue, monotonicMs()).includes(first)) continue;
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
		learnFromClaims(row, batch.filter((waiting) => waiting.claim).length, startedMs);
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
	claim: boolean,
	keys: readonly string[],
	maxEntries: number,
	notBeforeMs: number,
	aloneFromMs: number,
	latestStartMs = Number.POSITIVE_INFINITY,
): Promise<Set<string>> {
	if (keys.length === 0) return Promise.resolve(new Set());
	const id = nodeIdOf(context);
	return new Promise((done, failed) => {
		const waiting: Waiting = { kind, claim, notBeforeMs, aloneFromMs, latestStartMs, keys, context, options: { mode: 'entries', maxEntries }, done, failed };
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
		record: async (keys: readonly string[]) => await enqueue(context, 'record', true, keys, maxEntries, monotonicMs(), monotonicMs()),
		/** Records the entries again from `fromMs` on (of `monotonicMs`), with the node's next call, and answers those that were still recorded. */
		confirm: async (keys: readonly string[], fromMs: number) => await enqueue(context, 'record', false, keys, maxEntries, fromMs, fromMs + RIDE_WAIT_MS),
		/** Removes the entries, from `fromMs` on (of `monotonicMs`; at once without it), failing unmade if it cannot start by `latestStartMs`. */
		remove: async (keys: readonly string[], fromMs = monotonicMs(), latestStartMs?: number) => {
			await enqueue(context, 'remove', false, keys, maxEntries, fromMs, fromMs, latestStartMs);
		},
		/** How long a claim should wait before its request is chosen, for other orders to join it (`gatherInMs`); 0: choose it now. */
		gatherInMs: () => gatherInMs(nodeIdOf(context)),
		hold: async (keys: readonly string[], limit: HoldLimit) => await hold(nodeIdOf(context), keys, limit),
		/** How many entries this process's calls have added to the history so far: once `maxEntries` more, an entry may have been dropped. */
		added: () => rows.get(nodeIdOf(context))?.added ?? 0,
		maxEntries,
	};
}

/** Resolves once no call of the store waits in this process and no key is held, e.g. between the cases of a test, as at a restart of n8n. */
export async function keyStoreIdle(): Promise<void> {
	while (queues.size > 0 || keysHeld() > 0) await sleep(10);
}
