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
	operation: 'checkProcessedAndRecord' | 'removeProcessed' | 'clearAllProcessedItems' | 'getProcessedDataCount';
	items: DeduplicationItemTypes[];
	scope: DeduplicationScope;
	workflowId: string;
	nodeId?: string;
	options: ICheckProcessedOptions;
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

/**
 * n8n's deduplication store for in-process runs, in mode 'entries' (a history of values), as
 * n8n's database-backed helper behaves: one row per owner, kept as JSON text, read whole (parsed),
 * changed in memory and written back whole (serialized), with no lock, so executions running at
 * the same moment can overwrite each other's entries. Each read and write is a step of its own
 * (`latencyMs` long, a turn of the event loop at 0), as database round trips are.
 */
export class ProcessedDataStore implements IDataDeduplicator {
	/** Every call nodes made, in order. */
	readonly calls: StoreCall[] = [];

	/** How long each read and each write takes. */
	latencyMs = 0;

	/** How many of the next removals fail, as when the database is unreachable. */
	failingRemovals = 0;

	/** Each row's JSON text, as the database column holds it. */
	private readonly rows = new Map<string, string>();

	/** Forgets everything: a fresh n8n database. */
	clear(): void {
		this.rows.clear();
		this.calls.length = 0;
		this.latencyMs = 0;
		this.failingRemovals = 0;
	}

	/** Whether `value` is in `owner`'s history (the harness node's by default). */
	remembers(value: DeduplicationItemTypes, owner: StoreOwner = HARNESS_NODE): boolean {
		return this.row(owner)?.data.includes(hashOf(value)) ?? false;
	}

	/** How many entries `owner`'s history holds, repeated values counted each time, as n8n counts. */
	size(owner: StoreOwner = HARNESS_NODE): number {
		return this.row(owner)?.data.length ?? 0;
	}

	/** Puts values into `owner`'s history directly, as if an earlier execution had recorded them. */
	seed(values: DeduplicationItemTypes[], owner: StoreOwner = HARNESS_NODE): void {
		const row = this.row(owner) ?? { data: [] };
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
		if (options.mode !== 'entries') throw new Error(`the harness store models mode 'entries' only, not '${options.mode}'`);
		const row = await this.read(owner);
		const hashes = items.map(hashOf);
		if (row === undefined) {
			// No history yet: every value is new, repeated ones included, and all are kept.
			await this.insert(owner, { data: newest(hashes, options.maxEntries) });
			return { new: [...items], processed: [] };
		}
		// Checked against the history as read: a value repeated within this call is new each time.
		const known = new Set(row.data);
		const output: IDeduplicationOutput = { new: [], processed: [] };
		hashes.forEach((hash, index) => {
			if (known.has(hash)) output.processed.push(items[index]);
			else {
				output.new.push(items[index]);
				row.data.push(hash);
			}
		});
		await this.update(owner, { data: newest(row.data, options.maxEntries) });
		return output;
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<void> {
		const owner = this.record('removeProcessed', items, scope, context, options);
		if (this.failingRemovals > 0) {
			this.failingRemovals--;
			throw new Error('connection to the database was lost');
		}
		if (options.mode !== 'entries') throw new Error('Removing processed data is not possible in mode "latest"');
		const row = await this.read(owner);
		if (row === undefined) return;
		// One occurrence per value given.
		for (const hash of items.map(hashOf)) {
			const index = row.data.indexOf(hash);
			if (index !== -1) row.data.splice(index, 1);
		}
		await this.update(owner, row);
	}

	async clearAllProcessedItems(scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions): Promise<void> {
		const owner = this.record('clearAllProcessedItems', [], scope, context, options);
		await this.roundTrip();
		this.rows.delete(rowKey(owner));
	}

	async getProcessedDataCount(scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions): Promise<number> {
		const owner = this.record('getProcessedDataCount', [], scope, context, options);
		const row = await this.read(owner);
		return options.mode === 'entries' ? (row?.data.length ?? 0) : 0;
	}

	private record(operation: StoreCall['operation'], items: DeduplicationItemTypes[], scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions): StoreOwner {
		const owner = ownerOf(scope, context);
		this.calls.push({ operation, items: [...items], scope, ...owner, options: { ...options } });
		return owner;
	}

	/** The row parsed from its text, as a query returns it. */
	private async read(owner: StoreOwner): Promise<Row | undefined> {
		await this.roundTrip();
		return this.row(owner);
	}

	private row(owner: StoreOwner): Row | undefined {
		const text = this.rows.get(rowKey(owner));
		return text === undefined ? undefined : (JSON.parse(text) as Row);
	}

	/** At 0 one turn of the event loop: a timer of 0 would wait a millisecond the database is not asked to take. */
	private async roundTrip(): Promise<void> {
		await (this.latencyMs > 0 ? sleep(this.latencyMs) : nextTurn());
	}

	/** Fails as the table's primary key does when another execution inserted the row meanwhile. */
	private async insert(owner: StoreOwner, row: Row): Promise<void> {
		await this.roundTrip();
		if (this.rows.has(rowKey(owner))) throw new Error('duplicate key value violates unique constraint of processed_data');
		this.rows.set(rowKey(owner), JSON.stringify(row));
	}

	/** Replaces the whole row; a row deleted meanwhile stays deleted. */
	private async update(owner: StoreOwner, row: Row): Promise<void> {
		await this.roundTrip();
		if (this.rows.has(rowKey(owner))) this.rows.set(rowKey(owner), JSON.stringify(row));
	}
}

/** The last `maxEntries` hashes (all without a limit): n8n forgets the oldest first. */
function newest(hashes: string[], maxEntries: number | undefined): string[] {
	return maxEntries ? hashes.slice(-maxEntries) : hashes;
}

/** The one store of this process, which the harness hands to n8n-core. */
export const processedData = new ProcessedDataStore();
