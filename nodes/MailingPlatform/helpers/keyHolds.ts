/**
 * The keys executions of this n8n process are sending, per workflow and node: a second delivery
 * of an order waits for the first one's outcome here, before n8n's store is asked (keyStore.ts).
 */
import { sleep } from 'n8n-workflow';

import { monotonicMs } from '../transport/accountGate';

/** The keys executions of this process are sending, per workflow and node, each with the promise of its outcome. */
const sending = new Map<string, Promise<void>>();

/** How long a hold naps at most between looks at its deadline: `sleep` cannot be cancelled, so no nap outlives a hold by more. */
const LONGEST_HOLD_NAP_MS = 1000;

/** Where a hold's wait ends: at `deadlineMs` (of `monotonicMs`), or once `signal` says the execution was stopped. */
export interface HoldLimit {
	deadlineMs: number;
	signal?: AbortSignal;
}

/**
 * Takes `keys` for this execution once no other execution of this process holds any of them, and
 * answers how to give them back: a second delivery of an order waits for the first's outcome, so
 * it is skipped only once the order was queued, and sent if the first was refused. All keys are
 * taken at once, so two executions cannot wait for each other. The wait ends at the `limit`: the
 * keys still held by others are then `busy`, and only the free ones are taken.
 */
export async function hold(nodeId: string, keys: readonly string[], limit: HoldLimit): Promise<{ release: () => void; busy: Set<string> }> {
	const ids = keys.map((key) => JSON.stringify([nodeId, key]));
	const { signal } = limit;
	// Listened for only once the hold has to wait: most executions never do.
	let stopped: Promise<void> | undefined;
	for (;;) {
		const busy = new Set(ids.flatMap((id) => sending.get(id) ?? []));
		const leftMs = limit.deadlineMs - monotonicMs();
		if (busy.size === 0 || leftMs <= 0 || signal?.aborted === true) break;
		stopped ??= new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
		await Promise.race([Promise.all(busy), stopped, sleep(Math.max(1, Math.min(Math.ceil(leftMs), LONGEST_HOLD_NAP_MS)))]);
	}
	let settle = () => {};
	const settled = new Promise<void>((resolve) => (settle = resolve));
	const busy = new Set(keys.filter((_, index) => sending.has(ids[index])));
	const taken = ids.filter((id) => !sending.has(id));
	for (const id of taken) sending.set(id, settled);
	return {
		release: () => {
			for (const id of taken) sending.delete(id);
			settle();
		},
		busy,
	};
}

/** How many keys executions of this process hold now. */
export const keysHeld = () => sending.size;
