/**
 * The Deduplication Key's steps: keys are claimed in n8n's store before sending, so that a
 * delivery in another process skips them, and settled after: kept where the service queued the
 * transaction (or may have), released where it certainly did not, so that a re-run sends it.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { keyStore } from '../../helpers/keyStore';
import { thousands } from '../../helpers/numbers';
import { InputProblem, isEmpty } from '../../helpers/values';
import { readerFor } from '../../helpers/parameters';
import type { KeyOutcome, Outcome } from './results';

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

/** The items of `order` to send, and those skipped because an earlier item of this execution has their key. */
export function skipRepeatedKeys(keys: readonly string[], order: readonly number[]): { order: number[]; skipped: Outcome[] } {
	const firstItem = new Map<string, number>();
	const skipped: Outcome[] = [];
	const rest: number[] = [];
	for (const itemIndex of order) {
		const first = firstItem.get(keys[itemIndex]);
		if (first === undefined) {
			firstItem.set(keys[itemIndex], itemIndex);
			rest.push(itemIndex);
		} else skipped.push({ kind: 'skipped', itemIndexes: [itemIndex], reason: `Not sent: item ${first} of this execution has the same ${LABEL}` });
	}
	return { order: rest, skipped };
}

/**
 * A key the service queued has a second entry beside it, so that a later delivery can tell it
 * from a key whose execution never learned the outcome (n8n stopped, or the answer was lost).
 * The history therefore keeps two entries per key.
 */
const sentMarker = (key: string) => `sent ${key}`;
const storeOf = (context: IExecuteFunctions, historySize: number) => keyStore(context, 2 * historySize);

/** The Deduplication Key of every item (by item index; refused items have none) and how many keys the node remembers. */
export interface Deduplication {
	readonly keys: readonly string[];
	readonly historySize: number;
}

/** The keys claimed for this execution: the items to send, those decided here, and how to let other executions have the keys again. */
interface Claim {
	readonly order: readonly number[];
	readonly decided: readonly Outcome[];
	readonly letGo: () => void;
}

const nothingClaimed = (decided: Outcome[]): Claim => ({ order: [], decided, letGo: () => {} });

/**
 * Claims the keys of the items in `order`: waits while another execution of this process sends
 * any of them, then records them all. An item whose key was there already is not sent: its key
 * was sent before, or taken by an execution that does not know its outcome.
 */
export async function claimKeys(context: IExecuteFunctions, { keys, historySize }: Deduplication, order: readonly number[]): Promise<Claim> {
	const refuseAll = (problem: InputProblem) => nothingClaimed([{ kind: 'refused', itemIndexes: order, problem }]);
	if (order.length > historySize) {
		return refuseAll(new InputProblem(
			`${thousands(order.length)} items have a ${LABEL}, more than Deduplication History Size keeps (${thousands(historySize)}): the first keys would be forgotten while the last are sent`,
			`Raise Deduplication History Size to at least ${thousands(order.length)}, or send fewer items per execution.`,
		));
	}
	const store = storeOf(context, historySize);
	const claimed = order.map((itemIndex) => keys[itemIndex]);
	const letGo = await store.hold(claimed);
	let taken: Set<string>;
	let sent: Set<string>;
	try {
		taken = await store.record(claimed);
		const markers = [...taken].map(sentMarker);
		sent = await store.record(markers);
		// Recording is the only way to read the store: a marker that was not there goes again.
		await store.remove(markers.filter((marker) => !sent.has(marker)));
	} catch (error) {
		letGo();
		return refuseAll(new InputProblem(`The node could not check the ${LABEL} in n8n's store: ${(error as Error).message}`, 'Nothing was sent. Run the workflow again.'));
	}
	const decided: Outcome[] = [];
	const toSend: number[] = [];
	for (const itemIndex of order) {
		const key = keys[itemIndex];
		if (!taken.has(key)) toSend.push(itemIndex);
		else if (sent.has(sentMarker(key))) decided.push({ kind: 'skipped', itemIndexes: [itemIndex], reason: `Not sent again: this node already sent a transaction with this ${LABEL}` });
		else {
			const reason = `Not sent: an earlier execution took this ${LABEL} and this node does not know whether the service queued its transaction (n8n may have stopped, or the answer was lost). Check in the platform whether its e-mail went out; to send it on purpose, run it once with another key, e.g. "${key}-again".`;
			decided.push({ kind: 'skipped', itemIndexes: [itemIndex], reason });
		}
	}
	return { order: toSend, decided, letGo };
}

/**
 * Another process (a queue-mode worker) that read the history before this one's change and
 * writes after it undoes the change. So kept keys are recorded again until a round finds them
 * all there, for at most `CONFIRM_ROUNDS` rounds, and released keys are removed again: once a round
 * is not overlapped by another process's call, the change holds. Rounds are some 100 ms apart,
 * longer than a call of the store takes, at random so that two processes confirming at once do
 * not keep meeting.
 */
const CONFIRM_ROUNDS = 3;
const confirmDelayMs = () => 50 + Math.random() * 100;

/**
 * Records `entries` until a round finds them there, and answers whether one did; the first round
 * adds `fresh` ones (the marks), which only later rounds expect.
 */
async function confirmRecorded(store: ReturnType<typeof storeOf>, kept: readonly string[], fresh: readonly string[]): Promise<boolean> {
	const entries = [...kept, ...fresh];
	if (entries.length === 0) return true;
	for (let round = 1; round <= CONFIRM_ROUNDS; round++) {
		if (round > 1) await sleep(confirmDelayMs());
		const recordedBefore = await store.record(entries);
		if ((round === 1 ? kept : entries).every((entry) => recordedBefore.has(entry))) return true;
	}
	return false;
}

async function confirmRemoved(store: ReturnType<typeof storeOf>, entries: readonly string[]): Promise<void> {
	if (entries.length === 0) return;
	for (let round = 1; round <= CONFIRM_ROUNDS; round++) {
		if (round > 1) await sleep(confirmDelayMs());
		await store.remove(entries);
	}
}

/**
 * Settles the claimed keys by what sending decided (`sent`; undefined when sending did not
 * finish): a queued transaction's key is kept, with its marker; the key of one the service may
 * have queued is kept without; every other key is released. Lets other executions have the keys,
 * and answers where the store failed: such a key may skip, or let through, a later delivery.
 */
export async function settleKeys(context: IExecuteFunctions, { keys, historySize }: Deduplication, claim: Claim, sent: readonly Outcome[] | undefined): Promise<KeyOutcome[]> {
	const queued: number[] = [];
	const open: number[] = [];
	const released: number[] = [];
	const decided = new Set<number>();
	for (const outcome of sent ?? []) {
		outcome.itemIndexes.forEach((itemIndex, position) => {
			decided.add(itemIndex);
			if (outcome.kind === 'reported' && outcome.reports[position].queued) queued.push(itemIndex);
			else if (outcome.kind === 'failed' && outcome.error.outcomeUnknown) open.push(itemIndex);
			else released.push(itemIndex);
		});
	}
	// Items sending never reached: kept if it did not finish (they may have gone out), released if it stopped before them.
	for (const itemIndex of claim.order) if (!decided.has(itemIndex)) (sent === undefined ? open : released).push(itemIndex);

	const store = storeOf(context, historySize);
	const outcomes: KeyOutcome[] = [];
	const kept = [...queued, ...open];
	try {
		const keptKeys = kept.map((itemIndex) => keys[itemIndex]);
		if (!(await confirmRecorded(store, keptKeys, queued.map((itemIndex) => sentMarker(keys[itemIndex]))))) {
			const reason = `after ${CONFIRM_ROUNDS} rounds n8n's store still did not hold it: another n8n process kept writing this node's history meanwhile`;
			outcomes.push({ kind: 'notConfirmed', itemIndexes: kept, reason });
		}
	} catch (error) {
		if (kept.length > 0) outcomes.push({ kind: 'notConfirmed', itemIndexes: kept, reason: (error as Error).message });
	}
	try {
		await confirmRemoved(store, released.map((itemIndex) => keys[itemIndex]));
	} catch (error) {
		outcomes.push({ kind: 'notReleased', itemIndexes: released, reason: (error as Error).message });
	} finally {
		claim.letGo();
	}
	return outcomes;
}
