import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';

import { InputProblem, isEmpty } from '../../helpers/values';
import { readerFor } from '../../helpers/parameters';
import type { SendableRecord, TransactionRecord } from './outcomes';
import { isQueued, unsettled } from './outcomes';

const LABEL = 'Deduplication Key';

/** Each item's key as text; an empty key, or one that is not text or a number, is refused. */
export function keyReader(context: IExecuteFunctions): (itemIndex: number) => string {
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
			throw new InputProblem(`${LABEL} must be text or a number, not ${Array.isArray(value) ? 'a list' : typeof value}`, 'Map one field that identifies the order, e.g. {{ $json.id }}.');
		}
		return String(value).trim();
	};
}

/** Skips every item whose key an earlier item of this execution has. */
export function skipRepeatedKeys(records: readonly TransactionRecord[]): void {
	const firstItem = new Map<string, number>();
	for (const record of unsettled(records)) {
		const key = record.key as string;
		const first = firstItem.get(key);
		if (first === undefined) firstItem.set(key, record.itemIndex);
		else record.outcome = { kind: 'skipped', reason: `Not sent: item ${first} of this execution has the same ${LABEL}` };
	}
}

/**
 * Sends, with `send`, the records whose key this node has not sent before, in this or an earlier
 * execution. The keys are recorded in n8n's deduplication store before sending, so that a
 * duplicate arriving meanwhile is skipped; afterwards the keys of transactions not queued are
 * removed again, so that a re-run sends them.
 */
export async function sendOnce(
	context: IExecuteFunctions,
	historySize: number,
	records: readonly TransactionRecord[],
	send: (records: readonly SendableRecord[]) => Promise<void>,
): Promise<void> {
	const options: ICheckProcessedOptions = { mode: 'entries', maxEntries: historySize };
	const toSend = unsettled(records);
	if (toSend.length === 0) return;
	const { processed } = await context.helpers.checkProcessedAndRecord(toSend.map((record) => record.key as string), 'node', options);
	const sentBefore = new Set(processed.map(String));
	for (const record of toSend) {
		if (sentBefore.has(record.key as string)) record.outcome = { kind: 'skipped', reason: `Not sent again: this node already sent a transaction with this ${LABEL}` };
	}
	const claimed = toSend.filter((record) => record.outcome === undefined);
	try {
		await send(claimed);
	} finally {
		const unsent = claimed.filter((record) => !isQueued(record)).map((record) => record.key as string);
		if (unsent.length > 0) await context.helpers.removeProcessed(unsent, 'node', options);
	}
}
