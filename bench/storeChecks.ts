import { HARNESS_NODE, processedData } from '../test/harness/processedData';

/**
 * What the node asked n8n's store since `watchStore`. The store is the one the harness hands
 * n8n-core's DataDeduplicationService (the model of n8n's store), which logs every call it gets
 * from n8n-core's helpers before doing anything: these are the calls that would reach n8n's
 * database, one rewrite of the node's row each.
 */
export interface StoreUse {
	/** checkProcessedAndRecord calls for the node. */
	records: number;
	/** removeProcessed calls for the node. */
	removals: number;
	/** Entries handed to those calls, all together. */
	entries: number;
	/** Writes that replaced a row changed since they read it: another call's change lost. */
	overwrites: number;
}

const isTheNode = (call: { workflowId: string; nodeId?: string }) => call.workflowId === HARNESS_NODE.workflowId && call.nodeId === HARNESS_NODE.nodeId;

/** Forgets the calls logged so far; answers a reading of the calls made from now on. */
export function watchStore(): () => StoreUse {
	processedData.calls.length = 0;
	const overwritesBefore = processedData.overwrites;
	return () => {
		const calls = processedData.calls.filter(isTheNode);
		const kind = (operation: string) => calls.filter((call) => call.operation === operation).length;
		if (calls.length !== processedData.calls.length) throw new Error(`n8n's store got ${processedData.calls.length - calls.length} calls for another node`);
		return {
			records: kind('checkProcessedAndRecord'),
			removals: kind('removeProcessed'),
			entries: calls.reduce((sum, call) => sum + call.items.length, 0),
			overwrites: processedData.overwrites - overwritesBefore,
		};
	};
}

/** The history must be full, as it was seeded: the newest entries push the oldest out. */
export function checkHistoryFull(label: string, history: number): void {
	const size = processedData.size();
	if (size !== 2 * history) throw new Error(`${label}: the node's key history holds ${size} entries, not ${2 * history}`);
}

/**
 * Throws unless the store calls since `watchStore` recorded every order's key and the mark of its
 * queued transaction, removed none of them and lost no change, and the store holds them afterwards
 * (checked for the first, a middle and the last order: each look parses the whole row).
 */
export function checkKeysKept(label: string, orderIds: readonly string[], use: StoreUse, history: number): void {
	const recorded = new Set<string>();
	const removed = new Set<string>();
	for (const call of processedData.calls) for (const item of call.items) (call.operation === 'removeProcessed' ? removed : recorded).add(String(item));
	const entries = orderIds.flatMap((id) => [`key ${id}`, `sent ${id}`]);
	const notRecorded = entries.filter((entry) => !recorded.has(entry)).length;
	const gone = entries.filter((entry) => removed.has(entry)).length;
	const sample = [orderIds[0], orderIds[Math.floor(orderIds.length / 2)], orderIds[orderIds.length - 1]];
	const forgotten = sample.flatMap((id) => [`key ${id}`, `sent ${id}`]).filter((entry) => !processedData.remembers(entry));
	if (notRecorded + gone + use.overwrites + forgotten.length > 0) {
		throw new Error(
			`${label}: of ${entries.length} keys and marks ${notRecorded} were never recorded and ${gone} were removed; ` +
				`${use.overwrites} writes lost another call's change; the store lacks ${forgotten.length} of ${2 * sample.length} sampled entries`,
		);
	}
	checkHistoryFull(label, history);
}
