/**
 * The Deduplication Key's steps: keys repeated within the execution are skipped; the others are
 * claimed in n8n's store as their transaction leaves, so that a delivery in another process skips
 * them, and settled after: kept where the service queued the transaction (or may have), released
 * where it certainly did not, so that a re-run sends it.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { keyStore } from '../../helpers/keyStore';
import { keyEntry, removeInRounds, sentMarker, watchKept } from './keyRounds';
import { monotonicMs } from '../../transport/accountGate';
import { thousands } from '../../helpers/numbers';
import { InputProblem, isEmpty } from '../../helpers/values';
import { serviceError } from '../../transport/errors';
import { readerFor } from '../../helpers/parameters';
import type { KeyOutcome, Outcome } from './results';
import { mayHaveQueued } from './results';

const LABEL = 'Deduplication Key';

/** Each item's key as text; an empty key, or one that is not text or a number, is refused. */
export function keyReader(context: IExecuteFunctions): (itemIndex: number) => string {
	const read = readerFor<unknown>(context, 'options.deduplicationKey', '');
	return (itemIndex) => {
		const value = read(itemIndex);
		if (isEmpty(value)) {
			throw new InputProblem(
				`${LABEL} is empty, so the node cannot tell whether this transaction was sent before`,
				'Map a value that identifies the order, e.g. {{ $json.body.id }} behind a Webhook node, or remove the option.',
			);
		}
		if (typeof value !== 'string' && typeof value !== 'number') {
			throw new InputProblem(`${LABEL} must be text or a number, not ${Array.isArray(value) ? 'a list' : typeof value}`, 'Map one field that identifies the order, e.g. {{ $json.body.id }} behind a Webhook node.');
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

const storeOf = (context: IExecuteFunctions, historySize: number) => keyStore(context, 2 * historySize);

/** The Deduplication Key of every item (by item index; refused items have none) and how many keys the node remembers. */
export interface Deduplication {
	readonly keys: readonly string[];
	readonly historySize: number;
}

/** A refusal of every item when the history cannot keep all their keys: the first would be forgotten while the last are sent. */
export function beyondHistory({ historySize }: Deduplication, order: readonly number[]): Outcome | undefined {
	if (order.length <= historySize) return undefined;
	const problem = new InputProblem(
		`${thousands(order.length)} items have a ${LABEL}, more than Deduplication History Size keeps (${thousands(historySize)}): the first keys would be forgotten while the last are sent`,
		`Raise Deduplication History Size to at least ${thousands(order.length)}, or send fewer items per execution.`,
	);
	return { kind: 'refused', itemIndexes: order, problem };
}

const RELEASE_ATTEMPTS = 3;

/**
 * The keys of one execution's items while they are sent (sendJob.ts): held in this process from
 * the start, so that a second delivery of an order waits for the first's outcome; claimed in
 * n8n's store only as their request leaves, so that an n8n that dies loses no waiting order; and
 * settled as the request returns: kept where the service may have queued the transaction (with
 * its mark where it did), given back where it certainly did not, so that a re-run sends it. Only
 * keys this execution claimed are ever given back: a key another process holds is not touched.
 */
export class KeyClaims {
	/** Where the store failed to release a key: such a key skips a later delivery. */
	readonly outcomes: KeyOutcome[] = [];

	private readonly settlements: Array<Promise<void>> = [];

	/** What the keys stay held for after the execution: the first confirmation round (the marks) and every removal round. */
	private readonly heldUntil: Array<Promise<void>> = [];

	/**
	 * Keys this execution recorded in n8n's store, by item index, until they are settled or given
	 * back, with when the claim last recorded them.
	 */
	private readonly claimed = new Map<number, number>();

	/**
	 * Keys given back after a refusal whose removal may not hold (it failed, or another process
	 * undid it): found taken again, with no mark, they are still this execution's own.
	 */
	private readonly givenBack = new Set<number>();

	private constructor(
		private readonly context: IExecuteFunctions,
		private readonly keys: readonly string[],
		private readonly store: ReturnType<typeof storeOf>,
		/** Lets other executions of this process have the keys. */
		private readonly endHold: () => void,
		/** How long the hold waited for other executions of this process that held some of the keys: it counts towards Max Wait Seconds. */
		readonly waitedMs: number,
	) {}

	/**
	 * Waits while another execution of this process holds any of the keys of `order`, until
	 * `deadlineMs` (Max Wait Seconds from now) at most or until the execution
	 * is stopped, then holds the free keys. Those still held elsewhere are answered as `busy`,
	 * their items failed as not sent: the other execution's outcome decides what a re-run does.
	 */
	static async hold(context: IExecuteFunctions, { keys, historySize }: Deduplication, order: readonly number[], deadlineMs: number): Promise<{ claims: KeyClaims; busy: Outcome[] }> {
		const store = storeOf(context, historySize);
		const startedMs = monotonicMs();
		const { release, busy } = await store.hold(
			order.map((itemIndex) => keys[itemIndex]),
			{ deadlineMs, signal: context.getExecutionCancelSignal?.() },
		);
		const claims = new KeyClaims(context, keys, store, release, monotonicMs() - startedMs);
		const busyItems = order.filter((itemIndex) => busy.has(keys[itemIndex]));
		if (busyItems.length === 0) return { claims, busy: [] };
		claims.outcomes.push({ kind: 'heldByAnother', itemIndexes: busyItems });
		const error = serviceError(context, { message: `Not sent: another execution of this node was sending a transaction with the same ${LABEL} for as long as this one may wait (Max Wait Seconds), or until it was stopped`, notProcessed: true }, busyItems[0]);
		return { claims, busy: [{ kind: 'failed', itemIndexes: busyItems, error }] };
	}

	/** How long the request of these keys should wait to be chosen, so that orders arriving meanwhile share it and one rewrite of the history. */
	gatherInMs(): number {
		return this.store.gatherInMs();
	}

	keyOf(itemIndex: number): string {
		return this.keys[itemIndex];
	}

	/** The item's key as n8n's store holds it. */
	private entryOf(itemIndex: number): string {
		return keyEntry(this.keys[itemIndex]);
	}

	/**
	 * Claims the keys of a leaving request's items, and answers the outcomes of those not to send:
	 * their key was sent before, or taken by an execution that does not know its outcome, or the
	 * store could not be asked (then none of them is sent, and none stays claimed).
	 */
	async claim(itemIndexes: readonly number[]): Promise<Outcome[]> {
		const keys = itemIndexes.map((itemIndex) => this.entryOf(itemIndex));
		let taken: Set<string>;
		// A call that failed may have recorded the keys before: asking again tells which keys are there, not whose.
		let answerLost = false;
		try {
			taken = await this.store.record(keys);
		} catch {
			answerLost = true;
			try {
				taken = await this.store.record(keys);
			} catch (error) {
				return [this.notAsked(itemIndexes, error)];
			}
		}
		const found: number[] = [];
		const now = monotonicMs();
		for (const itemIndex of itemIndexes) {
			if (taken.has(this.entryOf(itemIndex))) found.push(itemIndex);
			else {
				this.claimed.set(itemIndex, now);
				this.givenBack.delete(itemIndex);
			}
		}
		if (found.length === 0) return [];
		const marks = found.map((itemIndex) => sentMarker(this.keys[itemIndex]));
		let sent: Set<string> | undefined;
		let failure: unknown;
		let markMayStay = false;
		try {
			sent = await this.store.record(marks);
		} catch (error) {
			failure = error;
		}
		try {
			// Recording is the only way to read the store: a mark that was not there goes again, and after a failed reading any may have been written.
			const { removed, ended } = removeInRounds(this.store, marks.filter((mark) => sent?.has(mark) !== true));
			this.heldUntil.push(ended);
			await removed;
		} catch (error) {
			failure ??= error;
			markMayStay = true;
		}
		if (failure !== undefined || sent === undefined) {
			await this.giveBack(itemIndexes.filter((itemIndex) => this.claimed.has(itemIndex)));
			const hint = markMayStay
				? `It was not sent. n8n's store may keep a "sent" mark for this key that it wrote to read the store, so a later delivery may be skipped as already sent: check in the platform, and run it once with another key to send it.`
				: undefined;
			return [this.notAsked(itemIndexes, failure, hint)];
		}
		const skipped: Outcome[] = [];
		for (const itemIndex of found) {
			const key = this.keys[itemIndex];
			const givenBack = this.givenBack.delete(itemIndex);
			if (sent.has(sentMarker(key))) skipped.push({ kind: 'skipped', itemIndexes: [itemIndex], reason: `Not sent again: this node already sent a transaction with this ${LABEL}` });
			// Its own key, whose give-back did not go through.
			else if (givenBack) this.claimed.set(itemIndex, now);
			else if (answerLost) {
				const reason = `Not sent: n8n's store failed while recording this ${LABEL}, so the node cannot tell whether it recorded the key or an earlier delivery whose outcome is unknown had taken it; the key stays. Check in the platform whether its e-mail went out; to send it, run it once with another key, e.g. "${key}-again".`;
				skipped.push({ kind: 'skipped', itemIndexes: [itemIndex], reason, unknown: true });
			} else {
				const reason = `Not sent: an earlier execution took this ${LABEL} and this node does not know whether the service queued its transaction (n8n may have stopped, the answer was lost, or in queue mode another worker is sending it now). Check in the platform whether its e-mail went out; to send it on purpose, run it once with another key, e.g. "${key}-again".`;
				skipped.push({ kind: 'skipped', itemIndexes: [itemIndex], reason, unknown: true });
			}
		}
		return skipped;
	}

	/**
	 * Gives back the keys of items whose request the service did not act on, or that did not
	 * leave, tried until one removal goes through (`RELEASE_ATTEMPTS`; no later round, which
	 * could remove the key this execution claims again). Once one went through, another process
	 * may claim the key; should none, the key is still this execution's own when found again,
	 * and `settled()` removes what was never sent.
	 */
	async release(itemIndexes: readonly number[]): Promise<void> {
		const mine = itemIndexes.filter((itemIndex) => this.claimed.delete(itemIndex));
		for (let attempt = 1; attempt <= RELEASE_ATTEMPTS; attempt++) {
			try {
				await this.store.remove(mine.map((itemIndex) => this.entryOf(itemIndex)));
				return;
			} catch {
				// Tried again; after the last round, given back all the same (see above).
			}
		}
		for (const itemIndex of mine) this.givenBack.add(itemIndex);
	}

	/**
	 * Settles the keys of a request's items by its outcome: `settled()` waits for what the
	 * execution says of them. A fault of this code there leaves each key as its claim recorded it.
	 */
	settle(outcome: Outcome): void {
		const settling = this.settleNow(outcome).catch((fault: unknown) => {
			// A key to keep stays as its claim recorded it; one to release stays too, and its item says so.
			const notReleased = outcome.itemIndexes.filter((_, position) => !mayHaveQueued(outcome, position));
			if (notReleased.length > 0) this.outcomes.push({ kind: 'notReleased', itemIndexes: notReleased, reason: (fault as Error).message });
		});
		this.settlements.push(settling);
	}

	/**
	 * Once the keys of every request are settled as far as the execution says (given back, or
	 * handed to `watchKept`), and those given back and never sent are gone from n8n's store. The
	 * keys stay held in this process until their first confirmation round and every removal
	 * round have gone, after the execution; under `n8n execute`, whose process ends with the
	 * execution, before it ends, so that the "sent" marks are written.
	 */
	async settled(): Promise<void> {
		try {
			await Promise.all(this.settlements);
			await this.giveBack([...this.givenBack]);
			this.givenBack.clear();
		} finally {
			const held = Promise.allSettled(this.heldUntil);
			void held.then(this.endHold);
			if (this.context.getMode() === 'cli') await held;
		}
	}

	private notAsked(
		itemIndexes: readonly number[],
		error: unknown,
		hint = 'It was not sent. Run the workflow again; should n8n\'s store have kept its key all the same, the re-run says so, and running it once with another key sends it.',
	): Outcome {
		const problem = new InputProblem(`The node could not check the ${LABEL} in n8n's store: ${(error as Error).message}`, hint);
		return { kind: 'refused', itemIndexes, problem, passes: true };
	}

	/** Removes this execution's keys of `itemIndexes` for good, saying so on the items where the store did not. */
	private async giveBack(itemIndexes: readonly number[]): Promise<void> {
		for (const itemIndex of itemIndexes) this.claimed.delete(itemIndex);
		const { removed, ended } = removeInRounds(this.store, itemIndexes.map((itemIndex) => this.entryOf(itemIndex)));
		this.heldUntil.push(ended);
		try {
			await removed;
		} catch (error) {
			this.outcomes.push({ kind: 'notReleased', itemIndexes, reason: (error as Error).message });
		}
	}

	private async settleNow(outcome: Outcome): Promise<void> {
		const queued: number[] = [];
		const open: number[] = [];
		const released: number[] = [];
		outcome.itemIndexes.forEach((itemIndex, position) => {
			if (!this.claimed.has(itemIndex)) return;
			if (mayHaveQueued(outcome, position)) (outcome.kind === 'reported' ? queued : open).push(itemIndex);
			else released.push(itemIndex);
		});
		const kept = [...queued, ...open];
		const writtenAtMs = kept.reduce((latest, itemIndex) => Math.max(latest, this.claimed.get(itemIndex) ?? 0), 0);
		for (const itemIndex of kept) this.claimed.delete(itemIndex);
		const marks = queued.map((itemIndex) => sentMarker(this.keys[itemIndex]));
		this.heldUntil.push(watchKept(this.context, this.store, kept.map((itemIndex) => this.entryOf(itemIndex)), marks, writtenAtMs));
		await this.giveBack(released);
	}
}
