import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { KeyStore } from '../../helpers/keyStore';
import { keyStore } from '../../helpers/keyStore';
import { thousands } from '../../helpers/numbers';
import { InputProblem, isEmpty } from '../../helpers/values';
import { readerFor } from '../../helpers/parameters';
import type { SendableRecord, TransactionRecord } from './outcomes';
import { unsettled } from './outcomes';

const keyOf = (record: TransactionRecord) => record.key as string;

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
		const key = keyOf(record);
		const first = firstItem.get(key);
		if (first === undefined) firstItem.set(key, record.itemIndex);
		else record.outcome = { kind: 'skipped', reason: `Not sent: item ${first} of this execution has the same ${LABEL}` };
	}
}

/**
 * Another process (a queue-mode worker) that read the history before this one's change and
 * writes after it undoes the change. So kept keys are recorded again until a round finds them
 * all there, and released keys are removed again: once a round is not overlapped by another
 * process's call, the change holds. Rounds are about 100 ms apart, longer than a call of the
 * store takes, at random so that two processes confirming at once do not keep meeting.
 */
const CONFIRM_ROUNDS = 3;
const confirmDelayMs = () => 50 + Math.random() * 100;

/**
 * Sends, with `send`, the records whose key this node has not sent before, in this or an earlier
 * execution. A duplicate in this process waits for the first's outcome; the keys are recorded
 * before sending, so that one in another process (a queue-mode worker) is skipped. Afterwards
 * the keys of queued transactions, and of those the service may have queued (outcome unknown),
 * are recorded again (another process may have written over them); the keys of everything else
 * are removed three times, so that a re-run sends it.
 */
export async function sendOnce(
	context: IExecuteFunctions,
	historySize: number,
	records: readonly TransactionRecord[],
	send: (records: readonly SendableRecord[]) => Promise<void>,
): Promise<void> {
	const toSend = unsettled(records);
	if (toSend.length > historySize) {
		const problem = new InputProblem(
			`${thousands(toSend.length)} items have a ${LABEL}, more than Deduplication History Size keeps (${thousands(historySize)}): the first keys would be forgotten while the last are sent`,
			`Raise Deduplication History Size to at least ${thousands(toSend.length)}, or send fewer items per execution.`,
		);
		for (const record of toSend) record.outcome = { kind: 'refused', problem };
		return;
	}
	const store = keyStore(context, historySize);
	const keys = toSend.map(keyOf);
	await store.whileSending(keys, async () => {
		let sentBefore: Set<string>;
		try {
			sentBefore = await store.record(keys);
		} catch (error) {
			const problem = new InputProblem(`The node could not check the ${LABEL} in n8n's store: ${(error as Error).message}`, 'Nothing was sent. Run the workflow again.');
			for (const record of toSend) record.outcome = { kind: 'refused', problem };
			return;
		}
		for (const record of toSend) {
			if (sentBefore.has(keyOf(record))) record.outcome = { kind: 'skipped', reason: `Not sent again: this node already sent a transaction with this ${LABEL}` };
		}
		const claimed = unsettled(toSend);
		let sent = false;
		try {
			await send(claimed);
			sent = true;
		} finally {
			await settleKeys(context, store, claimed, sent);
		}
	});
}

/** Whether the key must stay: the service queued the transaction, or may have. */
function keepsKey(record: TransactionRecord, sent: boolean): boolean {
	const { outcome } = record;
	if (outcome === undefined) return !sent;
	return (outcome.kind === 'reported' && outcome.report.queued) || (outcome.kind === 'failed' && outcome.failure.outcomeUnknown);
}

/** Records again the keys that stay and removes the others; never throws, so no error of the send is hidden. */
async function settleKeys(context: IExecuteFunctions, store: KeyStore, claimed: readonly SendableRecord[], sent: boolean): Promise<void> {
	const kept = claimed.filter((record) => keepsKey(record, sent)).map(keyOf);
	const released = claimed.filter((record) => !keepsKey(record, sent));
	try {
		for (let round = 1; round <= CONFIRM_ROUNDS; round++) {
			if (round > 1) await sleep(confirmDelayMs());
			const recordedBefore = await store.record(kept);
			if (kept.every((key) => recordedBefore.has(key))) break;
		}
	} catch (error) {
		// The items were sent all the same; only a redelivery that another process raced may go again.
		context.logger.warn(`Mailing Platform: the ${LABEL}s of ${kept.length} sent items could not be confirmed: ${(error as Error).message}`);
	}
	if (released.length === 0) return;
	try {
		for (let round = 1; round <= CONFIRM_ROUNDS; round++) {
			if (round > 1) await sleep(confirmDelayMs());
			await store.remove(released.map(keyOf));
		}
	} catch (error) {
		for (const record of released) record.keyNotReleased = (error as Error).message;
	}
}
