import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';

import { InputProblem, isEmpty } from '../../helpers/input';
import type { ItemResults } from './outputs';
import { readerFor } from '../../helpers/parameters';
import type { PreparedTransaction } from './packing';

/** The value that identifies one order (or whatever the transaction is about) across executions. */
export type DeduplicationKey = string;

const LABEL = 'Deduplication Key';

/** Each item's key as text; an empty key, or one that is not text or a number, is refused. */
export function deduplicationKeyReader(context: IExecuteFunctions): (itemIndex: number) => DeduplicationKey {
	const read = readerFor<unknown>(context, 'options.deduplicationKey', '');
	return (itemIndex) => {
		const value = read(itemIndex);
		if (isEmpty(value)) {
			throw new InputProblem(
				`${LABEL} is empty, so the node cannot tell whether this transaction was sent before`,
				'Map a value that identifies the order, e.g. {{ $json.id }}, or remove the option.',
			);
		}
		if (typeof value !== 'string' && typeof value !== 'number') {
			throw new InputProblem(
				`${LABEL} must be text or a number, not ${Array.isArray(value) ? 'a list' : typeof value}`,
				'Map one field that identifies the order, e.g. {{ $json.id }}.',
			);
		}
		return String(value).trim();
	};
}

/**
 * The keys this node has sent, in n8n's own deduplication store (the one Remove Duplicates uses,
 * in n8n's database): it holds across executions, restarts and queue-mode workers. The store reads
 * and writes without a lock, so two executions at the same instant can both find a key new.
 */
export function sentKeys(context: IExecuteFunctions, historySize: number) {
	const options: ICheckProcessedOptions = { mode: 'entries', maxEntries: historySize };
	return {
		/** Records `keys` as sent and returns those that were recorded already. */
		async claim(keys: DeduplicationKey[]): Promise<Set<DeduplicationKey>> {
			if (keys.length === 0) return new Set();
			const { processed } = await context.helpers.checkProcessedAndRecord(keys, 'node', options);
			return new Set(processed.map(String));
		},
		/** Forgets keys whose transactions were not queued after all, so that a re-run sends them. */
		async release(keys: DeduplicationKey[]): Promise<void> {
			if (keys.length > 0) await context.helpers.removeProcessed(keys, 'node', options);
		},
	};
}

/** The first transaction of each key; a later item with the same key is skipped (in a dry run too, where it shows its transaction). */
export function firstOfEachKey(transactions: PreparedTransaction[], results: ItemResults, dryRun: boolean): PreparedTransaction[] {
	const firstItem = new Map<DeduplicationKey, number>();
	return transactions.filter(({ itemIndex, transaction }) => {
		const key = results.keyOf(itemIndex);
		const first = firstItem.get(key);
		if (first === undefined) {
			firstItem.set(key, itemIndex);
			return true;
		}
		const reason = `Not sent: item ${first} of this execution has the same ${LABEL}`;
		results.skipped(itemIndex, transaction, reason, dryRun ? { dryRun: true, transaction } : {});
		return false;
	});
}

/** Records the keys as sent and skips the transactions whose key this node had sent before. */
export async function skipSentKeys(
	history: ReturnType<typeof sentKeys>,
	transactions: PreparedTransaction[],
	results: ItemResults,
): Promise<PreparedTransaction[]> {
	const sentBefore = await history.claim(transactions.map(({ itemIndex }) => results.keyOf(itemIndex)));
	return transactions.filter(({ itemIndex, transaction }) => {
		if (!sentBefore.has(results.keyOf(itemIndex))) return true;
		results.skipped(itemIndex, transaction, `Not sent again: this node already sent a transaction with this ${LABEL}`);
		return false;
	});
}
