/**
 * What a simulated case is made of, and the models of what Create meets outside this package: the
 * service (each request answered as the case says), n8n's deduplication store (one row per node,
 * read whole at a call's start and written whole at its end, with no lock, so calls of two
 * processes that overlap lose one's change) and the record of what both saw, which the checks
 * read. Every call into them settles when fast-check's scheduler says, so the case's seed
 * decides the order in which answers, store calls and timers meet.
 */
import type { Scheduler } from 'fast-check';

/** `npm run test:simulate -- --trace`: every store call, for reading a replayed case. */
const tracing = process.env.SIMULATION_TRACE === '1';

/** How the service answers a request (by the request's number in the case; later ones are taken). */
export type Answer =
	| 'taken'
	/** Every transaction reported `queued: false`. */
	| 'declined'
	| 'tooMany'
	/** 503 with an HTTP-date Retry-After. */
	| 'unavailable'
	| 'tooLarge'
	/** The connection was refused: nothing left. */
	| 'unreachable'
	/** The service queued the transactions, then the connection broke before the answer. */
	| 'brokenAfter'
	/** 500 after the service queued them. */
	| 'serverError'
	/** 200 with a body that cannot be read; the service queued them. */
	| 'garbled';

/** Whether the service acted on a request so answered: its transactions were queued. */
export const ACTED: Readonly<Record<Answer, boolean>> = {
	taken: true,
	declined: false,
	tooMany: false,
	unavailable: false,
	tooLarge: false,
	unreachable: false,
	brokenAfter: true,
	serverError: true,
	garbled: true,
};

/** One delivery of orders to Create: an execution on a process, started at `atMs`. */
export interface Delivery {
	process: number;
	atMs: number;
	orders: string[];
	keyed: boolean;
	maxWaitSeconds: number;
	/** A user stops the execution then (ms after its start). */
	stopAfterMs?: number;
}

/** A store call (by its number in the case) that fails before its write, or whose answer is lost after it. */
export interface StoreFault {
	call: number;
	when: 'beforeWrite' | 'afterWrite';
}

/** A method of the sender's own code that throws at its `call`th call in the case. */
export interface CodeFault {
	method: string;
	call: number;
}

export interface SimulationCase {
	processes: number;
	deliveries: Delivery[];
	answers: Answer[];
	storeFaults: StoreFault[];
	codeFaults: CodeFault[];
	/** n8n's workflow timeout (Settings › Timeout Workflow), when set: every execution is cancelled that long after its start. */
	workflowTimeoutMs?: number;
	/** Seeds the package's `Math.random` (the gate's spread, the store's round delays). */
	randomSeed: number;
	/** n8n counts the node's history full at its first call (20,000 entries, as after weeks of orders): claims gather before their request is chosen. */
	fullHistory: boolean;
	/** The executions run as `n8n execute` runs them (mode 'cli'), each waiting for its keys' first round. */
	commandLine: boolean;
}

/** One transaction as the service received it. */
export interface Carried {
	delivery: number;
	item: number;
	order: string;
}

export interface RequestRecord {
	number: number;
	process: number;
	carried: Carried[];
	answer: Answer;
	sentAtMs: number;
	answeredAtMs?: number;
}

/** What happened, as the checks read it. */
export class CaseRecord {
	readonly requests: RequestRecord[] = [];

	/** How often the service queued each order (keyed or not), and each delivery's item. */
	readonly queuedOrders = new Map<string, number>();

	readonly queuedItems = new Map<string, number>();

	/** Entries an overlapping store call may have lost or brought back: the documented limit of n8n's store across processes. */
	readonly storeLimitKeys = new Set<string>();

	storeCalls = 0;

	/** When each process's recording calls of n8n's store started: a claim's gathering ends in one. */
	readonly recordingsAtMs: Array<{ process: number; atMs: number }> = [];

	queue(carried: Carried): void {
		this.queuedOrders.set(carried.order, (this.queuedOrders.get(carried.order) ?? 0) + 1);
		const item = `${carried.delivery}:${carried.item}`;
		this.queuedItems.set(item, (this.queuedItems.get(item) ?? 0) + 1);
	}

	requestsCarrying(delivery: number, item: number): RequestRecord[] {
		return this.requests.filter((request) => request.carried.some((carried) => carried.delivery === delivery && carried.item === item));
	}
}

export class StoreRow {
	entries: string[] = [];

	private version = 0;

	constructor(
		private readonly record: CaseRecord,
		private readonly scheduler: Scheduler,
		private readonly faults: readonly StoreFault[],
		/** Whether faults strike and the scheduler decides when the call ends (the redelivery after the case runs without, its calls ending at once). */
		private readonly faulty: () => boolean,
	) {}

	/** Which process's call last added each entry. */
	private readonly addedBy = new Map<string, number>();

	/** A call of n8n's `checkProcessedAndRecord` (mode entries) or `removeProcessed` by `process`. */
	async call(process: number, kind: 'record' | 'remove', keys: readonly string[], maxEntries: number): Promise<string[]> {
		const number = ++this.record.storeCalls;
		if (kind === 'record') this.record.recordingsAtMs.push({ process, atMs: Date.now() });
		const fault = this.faulty() ? this.faults.find((candidate) => candidate.call === number) : undefined;
		const read = [...this.entries];
		const readVersion = this.version;
		await (this.faulty() ? this.scheduler.schedule(Promise.resolve(), `store call ${number} (${kind})`) : Promise.resolve());
		if (fault?.when === 'beforeWrite') throw new Error(`the store failed (call ${number})`);
		const known = new Set(read);
		const recordedBefore = keys.filter((key) => known.has(key));
		const written =
			kind === 'remove' ? read.filter((entry) => !keys.includes(entry)) : [...read, ...keys.filter((key, index) => !known.has(key) && keys.indexOf(key) === index)].slice(-maxEntries);
		if (this.version !== readVersion) this.noteStale(read, keys);
		this.noteReadMarks(process, recordedBefore);
		for (const key of written) if (!known.has(key)) this.addedBy.set(key, process);
		this.entries = written;
		this.version++;
		if (tracing) console.log(`store ${number} p${process} ${kind} [${keys.join(', ')}] before: [${recordedBefore.join(', ')}] ${fault?.when ?? ''} -> [${written.join(', ')}]`);
		if (fault?.when === 'afterWrite') throw new Error(`the store's answer was lost (call ${number})`);
		return recordedBefore;
	}

	/**
	 * n8n's store offers no way to read an entry without writing it, so a process reads a "sent"
	 * mark by recording it and removes it again where it was new: another process's reading
	 * meanwhile finds it, as if the order had been sent. That is the store's limit too.
	 */
	private noteReadMarks(process: number, recordedBefore: readonly string[]): void {
		for (const entry of recordedBefore) {
			if (entry.startsWith('sent ') && this.addedBy.get(entry) !== process) this.record.storeLimitKeys.add(entry.slice('sent '.length));
		}
	}

	/**
	 * A write over a row another call changed since this one read it decides wrongly the entries
	 * changed meanwhile (erased again, or brought back) and may meet another call's claim of its own.
	 */
	private noteStale(read: readonly string[], keys: readonly string[]): void {
		const now = new Set(this.entries);
		const before = new Set(read);
		const changed = [...keys, ...this.entries.filter((key) => !before.has(key)), ...read.filter((key) => !now.has(key))];
		for (const key of changed) this.record.storeLimitKeys.add(key.replace(/^sent /, ''));
	}
}
