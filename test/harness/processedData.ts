import { createHash } from 'node:crypto';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type {
	DeduplicationItemTypes,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

import { freeMark, keyEntry } from '../../nodes/MailingPlatform/actions/transaction/keyRounds';
import { Meeting } from './meetingCalls';
import type { StoreDatabase } from './storeDatabases';
import { insertCollision } from './storeDatabases';

export type { StoreDatabase } from './storeDatabases';

/** The workflow and node every `runNode` run is: executions of one saved workflow. */
export const HARNESS_NODE = { workflowId: 'test-workflow', nodeId: 'node' } as const;

export interface StoreOwner {
	workflowId: string;
	/** Absent for the 'workflow' scope. */
	nodeId?: string;
}

/** One row of n8n's processed_data table in mode 'entries': the hashes, oldest first. */
interface Row {
	data: string[];
}

export interface StoreCall {
	operation: 'checkProcessedAndRecord' | 'removeProcessed' | 'clearAllProcessedItems';
	items: DeduplicationItemTypes[];
	scope: DeduplicationScope;
	workflowId: string;
	nodeId?: string;
	options: ICheckProcessedOptions;
}

/**
 * Whether a delivery of the order with `key` finds its key taken in a history that `has` reads:
 * a generation of the key recorded without its "free" mark, where every earlier one has its mark
 * (keyRounds.ts). A key never recorded, or marked free in every generation, is free.
 */
export function keyTaken(has: (entry: string) => boolean, key: string): boolean {
	for (let generation = 1; has(keyEntry(key, generation)); generation++) if (!has(freeMark(key, generation))) return true;
	return false;
}

/** n8n keeps the value's MD5 (of its text: 1 and "1" are one value), not the value. */
const hashOf = (value: DeduplicationItemTypes) => createHash('md5').update(String(value)).digest('base64');

/** n8n's row key: the workflow id and, for scope 'node', `n:<node id>` (renaming keeps the history). */
const rowKey = (owner: StoreOwner) => JSON.stringify([owner.workflowId, owner.nodeId === undefined ? '' : `n:${owner.nodeId}`]);

function ownerOf(scope: DeduplicationScope, context: ICheckProcessedContextData): StoreOwner {
	if (scope === 'workflow') return { workflowId: context.workflow.id };
	if (context.node === undefined) throw new Error("No node information has been provided and so cannot use scope 'node'");
	return { workflowId: context.workflow.id, nodeId: context.node.id };
}

/** A row as one call read it: parsed, and the text it was parsed from. */
interface ReadRow {
	row: Row;
	text: string;
}

/**
 * A MODEL of n8n's deduplication store, mode 'entries'. n8n-core (a dependency) ships only
 * DataDeduplicationService, which hands the nodes' calls to a store; the store itself
 * (DeduplicationHelper over the processed_data table) is in n8n's CLI package, which npm test
 * does not load. This model follows that helper: one row per owner, kept as JSON text, read
 * whole, changed in memory and written back whole with no lock; the first call inserts the row,
 * and an insert of a row that exists fails as the database does (`database`). Each read and
 * write is a step of its own (`latencyMs` long, a turn of the event loop at 0).
 * The real store is run by test:e2e and test:peak (SQLite) and test:queue (Postgres, two workers).
 */
export class ProcessedDataStore implements IDataDeduplicator {
	/** Every call nodes made that writes, in order. */
	readonly calls: StoreCall[] = [];

	/** How long each read and each write takes. */
	latencyMs = 0;

	/** How many of the next removals fail, as when the database is unreachable. */
	failingRemovals = 0;

	/** How many of the next recordings fail, as when the database is unreachable. */
	failingRecordings = 0;

	/** How many of the next recordings are undone right after they are written, as another process's write of an older read undoes them. */
	lostRecordings = 0;

	/**
	 * What befalls given calls of nodes, by their number from 1 (as `calls` counts them): 'fail',
	 * as when the database is unreachable, or 'undo', written and then undone at once, as another
	 * process's write of an older read undoes it.
	 */
	readonly planned = new Map<number, 'fail' | 'undo'>();

	/**
	 * Stale writes of another process, by the number of the call they precede: that process read
	 * the row just before the call and writes what it read back this many milliseconds later,
	 * undoing every change made meanwhile.
	 */
	readonly staleWrites = new Map<number, number>();

	/** The database whose errors the store gives. */
	database: StoreDatabase = 'sqlite';

	/** Inserts refused because another call inserted the row first. */
	refusedInserts = 0;

	/** Writes that undid another call's change: the row had changed since they read it. */
	overwrites = 0;

	/** Each row's JSON text, as the database column holds it. */
	private readonly rows = new Map<string, string>();

	/** Set by `nextCallsMeet`. */
	private meeting?: Meeting;

	/** Forgets everything: a fresh n8n database. */
	clear(): void {
		this.rows.clear();
		this.calls.length = 0;
		this.latencyMs = 0;
		this.failingRemovals = 0;
		this.failingRecordings = 0;
		this.lostRecordings = 0;
		this.database = 'sqlite';
		this.refusedInserts = 0;
		this.overwrites = 0;
		this.meeting = undefined;
		this.planned.clear();
		this.staleWrites.clear();
	}

	/**
	 * The next two record calls meet, as two n8n processes' calls can: both read the row before
	 * either writes, and they write in the order they read. On a missing row the second's insert
	 * collides; on a row that exists the second's write undoes the first's change.
	 */
	nextCallsMeet(): void {
		this.meeting = new Meeting();
	}

	/** Whether `value` is in `owner`'s history (the harness node's by default). */
	remembers(value: DeduplicationItemTypes, owner: StoreOwner = HARNESS_NODE): boolean {
		return this.row(owner)?.row.data.includes(hashOf(value)) ?? false;
	}

	/** Whether a delivery of the order with `key` finds its key taken in `owner`'s history (`keyTaken`). */
	takes(key: string, owner: StoreOwner = HARNESS_NODE): boolean {
		return keyTaken((entry) => this.remembers(entry, owner), key);
	}

	/** How many entries `owner`'s history holds, repeated values counted each time, as n8n counts. */
	size(owner: StoreOwner = HARNESS_NODE): number {
		return this.row(owner)?.row.data.length ?? 0;
	}

	/** Puts values into `owner`'s history directly, as if an earlier execution had recorded them. */
	seed(values: DeduplicationItemTypes[], owner: StoreOwner = HARNESS_NODE): void {
		const row = this.row(owner)?.row ?? { data: [] };
		row.data.push(...values.map(hashOf));
		this.rows.set(rowKey(owner), JSON.stringify(row));
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		const owner = this.record('checkProcessedAndRecord', items, scope, context, options);
		const planned = this.planned.get(this.calls.length);
		if (this.failingRecordings > 0 || planned === 'fail') {
			if (planned !== 'fail') this.failingRecordings--;
			throw new Error('connection to the database was lost');
		}
		if (options.mode !== 'entries') throw new Error(`the model of n8n's store has mode 'entries' only, not '${options.mode}'`);
		const read = await this.read(owner);
		const inTurn = this.meeting?.arrive() ?? (async (write: () => Promise<void>) => await write());
		if (this.meeting?.complete) this.meeting = undefined;
		const hashes = items.map(hashOf);
		if (this.lostRecordings > 0 || planned === 'undo') {
			if (planned !== 'undo') this.lostRecordings--;
			await this.roundTrip();
			return { new: items.filter((_, index) => !read?.row.data.includes(hashes[index])), processed: items.filter((_, index) => read?.row.data.includes(hashes[index]) ?? false) };
		}
		if (read === undefined) {
			// No history yet: every value is new, repeated ones included, and all are kept.
			await inTurn(async () => await this.insert(owner, { data: newest(hashes, options.maxEntries) }));
			return { new: [...items], processed: [] };
		}
		// Checked against the history as read: a value repeated within this call is new each time.
		const known = new Set(read.row.data);
		const output: IDeduplicationOutput = { new: [], processed: [] };
		hashes.forEach((hash, index) => {
			if (known.has(hash)) output.processed.push(items[index]);
			else {
				output.new.push(items[index]);
				read.row.data.push(hash);
			}
		});
		await inTurn(async () => await this.update(owner, { row: { data: newest(read.row.data, options.maxEntries) }, text: read.text }));
		return output;
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<void> {
		const owner = this.record('removeProcessed', items, scope, context, options);
		const planned = this.planned.get(this.calls.length);
		if (this.failingRemovals > 0 || planned === 'fail') {
			if (planned !== 'fail') this.failingRemovals--;
			throw new Error('connection to the database was lost');
		}
		if (options.mode !== 'entries') throw new Error('Removing processed data is not possible in mode "latest"');
		const read = await this.read(owner);
		if (read === undefined) return;
		// One occurrence per value given.
		for (const hash of items.map(hashOf)) {
			const index = read.row.data.indexOf(hash);
			if (index !== -1) read.row.data.splice(index, 1);
		}
		if (planned === 'undo') await this.roundTrip();
		else await this.update(owner, read);
	}

	async clearAllProcessedItems(scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions): Promise<void> {
		const owner = this.record('clearAllProcessedItems', [], scope, context, options);
		await this.roundTrip();
		this.rows.delete(rowKey(owner));
	}

	/** A read: not in `calls`, so that the calls' numbers are those of the calls that write. */
	async getProcessedDataCount(scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions): Promise<number> {
		const read = await this.read(ownerOf(scope, context));
		return options.mode === 'entries' ? (read?.row.data.length ?? 0) : 0;
	}

	private record(operation: StoreCall['operation'], items: DeduplicationItemTypes[], scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions): StoreOwner {
		const owner = ownerOf(scope, context);
		this.calls.push({ operation, items: [...items], scope, ...owner, options: { ...options } });
		const staleAfterMs = this.staleWrites.get(this.calls.length);
		const read = this.rows.get(rowKey(owner));
		if (staleAfterMs !== undefined && read !== undefined) {
			void sleep(staleAfterMs).then(() => {
				this.overwrites++;
				this.rows.set(rowKey(owner), read);
			});
		}
		return owner;
	}

	/** The row parsed from its text, as a query returns it. */
	private async read(owner: StoreOwner): Promise<ReadRow | undefined> {
		await this.roundTrip();
		return this.row(owner);
	}

	private row(owner: StoreOwner): ReadRow | undefined {
		const text = this.rows.get(rowKey(owner));
		return text === undefined ? undefined : { row: JSON.parse(text) as Row, text };
	}

	/** At 0 one turn of the event loop: a timer of 0 would wait a millisecond the database is not asked to take. */
	private async roundTrip(): Promise<void> {
		await (this.latencyMs > 0 ? sleep(this.latencyMs) : nextTurn());
	}

	/** Fails as the table's primary key does when another execution inserted the row meanwhile. */
	private async insert(owner: StoreOwner, row: Row): Promise<void> {
		await this.roundTrip();
		if (this.rows.has(rowKey(owner))) {
			this.refusedInserts++;
			throw insertCollision(this.database);
		}
		this.rows.set(rowKey(owner), JSON.stringify(row));
	}

	/** Replaces the whole row, whatever was written since it was read; a row deleted meanwhile stays deleted. */
	private async update(owner: StoreOwner, written: ReadRow): Promise<void> {
		await this.roundTrip();
		const stored = this.rows.get(rowKey(owner));
		if (stored === undefined) return;
		if (stored !== written.text) this.overwrites++;
		this.rows.set(rowKey(owner), JSON.stringify(written.row));
	}
}

/** The last `maxEntries` hashes (all without a limit): n8n forgets the oldest first. */
function newest(hashes: string[], maxEntries: number | undefined): string[] {
	return maxEntries ? hashes.slice(-maxEntries) : hashes;
}

/** The one store of this process, which the harness hands to n8n-core's DataDeduplicationService. */
export const processedData = new ProcessedDataStore();
