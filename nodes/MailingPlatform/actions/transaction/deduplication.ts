/**
 * The Deduplication Key in n8n's store: each key is claimed as its transaction leaves, so that a
 * delivery in another process skips it, and settled after: kept where the service queued the
 * transaction (or may have), marked free where it certainly did not, so that a re-run sends it.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { KeyStore } from '../../helpers/keyStore';
import { keyStore } from '../../helpers/keyStore';
import { InputProblem } from '../../helpers/values';
import { monotonicMs } from '../../transport/accountGate';
import { serviceError } from '../../transport/errors';
import type { Deduplication } from './deduplicationKey';
import { LABEL } from './deduplicationKey';
import type { KeyMarks } from './keyReading';
import { readMarks, recordAskingAgain } from './keyReading';
import { freedMark, freeMark, keyEntry, sentMarker, watchKept } from './keyRounds';
import type { KeyOutcome, Outcome } from './results';
import { mayHaveQueued } from './results';

const storeOf = (context: IExecuteFunctions, historySize: number) => keyStore(context, 2 * historySize);

const RELEASE_ATTEMPTS = 3;

/**
 * The keys of one execution's items while they are sent (sendJob.ts): held in this process from
 * the start, so that a second delivery of an order waits for the first's outcome; claimed in
 * n8n's store only as their request leaves, so that an n8n that dies loses no waiting order; and
 * settled as the request returns: kept where the service may have queued the transaction (with
 * its mark where it did), and given back where it certainly did not, so that a re-run sends it.
 * A key is given back by marking it free, never by removing it: another process's stale write
 * can bring a removed key back unseen, and its order would read as "outcome unknown" for good,
 * while a mark it removes is written again (`watchKept`). The next claim of the key, by this
 * execution or a later one, records its next generation. Only keys this execution claimed are
 * ever marked: a key another process holds is not touched.
 */
export class KeyClaims {
	/** Where the store failed to mark a key free: such a key skips a later delivery. */
	readonly outcomes: KeyOutcome[] = [];

	private readonly settlements: Array<Promise<void>> = [];

	/** What the keys stay held for after the execution: the first confirmation round (marks, and keys marked free) and every removal round. */
	private readonly heldUntil: Array<Promise<void>> = [];

	/**
	 * Keys this execution recorded in n8n's store, by item index, until they are settled or given
	 * back, with when the claim recorded them.
	 */
	private readonly claimed = new Map<number, number>();

	/** Each item's key generation to claim next, where an earlier claim of it was marked free (1 otherwise). */
	private readonly generations = new Map<number, number>();

	/** Items whose key this execution gave back and n8n's store did not mark free (in any generation), with the store's error: unless the service took the item after all, its item says so. */
	private readonly unmarked = new Map<number, string>();

	private constructor(
		private readonly context: IExecuteFunctions,
		private readonly keys: readonly string[],
		private readonly store: KeyStore,
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

	keyOf(itemIndex: number): string {
		return this.keys[itemIndex];
	}

	private generationOf(itemIndex: number): number {
		return this.generations.get(itemIndex) ?? 1;
	}

	/** The item's key as n8n's store holds it, of the generation the item claims. */
	private entryOf(itemIndex: number): string {
		return keyEntry(this.keys[itemIndex], this.generationOf(itemIndex));
	}

	/** The marks of that generation. */
	private marksOf(itemIndex: number): KeyMarks {
		const [key, generation] = [this.keys[itemIndex], this.generationOf(itemIndex)];
		return { sent: sentMarker(key, generation), free: freeMark(key, generation), freed: freedMark(key, generation) };
	}

	/** The item's next claim records its key's next generation. */
	private toNextGeneration(itemIndex: number): void {
		this.generations.set(itemIndex, this.generationOf(itemIndex) + 1);
	}

	/**
	 * Claims the keys of a leaving request's items, and answers the outcomes of those not to send:
	 * their key was sent before, or taken by an execution that does not know its outcome, or the
	 * store could not be asked (then none of them is sent, and none stays claimed). A key whose
	 * earlier claims were each marked free is claimed in its next generation.
	 */
	async claim(itemIndexes: readonly number[]): Promise<Outcome[]> {
		const outcomes: Outcome[] = [];
		// Ends: each round records a generation new to the row or finds it there, and the row is finite.
		for (let freed = itemIndexes; freed.length > 0; ) {
			const { skipped, released } = await this.claimGeneration(freed);
			outcomes.push(...skipped);
			freed = released;
		}
		return outcomes;
	}

	/**
	 * Claims the keys of `itemIndexes` in their generation: answers the items not to send, and
	 * those whose generation was marked free, to claim in the next.
	 */
	private async claimGeneration(itemIndexes: readonly number[]): Promise<{ skipped: Outcome[]; released: number[] }> {
		let taken: Set<string>;
		// A call that failed may have recorded the keys before: asking again tells which keys are there, not whose.
		let answerLost: boolean;
		try {
			const asked = await recordAskingAgain(this.store, itemIndexes.map((itemIndex) => this.entryOf(itemIndex)));
			taken = asked.recordedBefore;
			answerLost = asked.failedFirst !== undefined;
		} catch (error) {
			return { skipped: [this.notAsked(itemIndexes, error)], released: [] };
		}
		const found: number[] = [];
		const now = monotonicMs();
		for (const itemIndex of itemIndexes) {
			if (taken.has(this.entryOf(itemIndex))) found.push(itemIndex);
			else this.claimed.set(itemIndex, now);
		}
		if (found.length === 0) return { skipped: [], released: [] };
		const { sent, free, failure, markMayStay, ended } = await readMarks(this.store, found.map((itemIndex) => this.marksOf(itemIndex)));
		this.heldUntil.push(ended);
		if (failure !== undefined) {
			const claimedHere = itemIndexes.filter((itemIndex) => this.claimed.has(itemIndex));
			if (claimedHere.length > 0) await this.release(claimedHere);
			const hint = markMayStay
				? `It was not sent. n8n's store may keep a "sent" mark for this key that it wrote to read the store, so a later delivery may be skipped as already sent: check in the platform, and run it once with another key to send it.`
				: undefined;
			return { skipped: [this.notAsked(itemIndexes, failure, hint)], released: [] };
		}
		const skipped: Outcome[] = [];
		const released: number[] = [];
		for (const [position, itemIndex] of found.entries()) {
			const key = this.keys[itemIndex];
			if (sent.has(position)) skipped.push({ kind: 'skipped', itemIndexes: [itemIndex], reason: `Not sent again: this node already sent a transaction with this ${LABEL}` });
			else if (free.has(position)) {
				this.toNextGeneration(itemIndex);
				released.push(itemIndex);
			} else if (answerLost) {
				const reason = `Not sent: n8n's store failed while recording this ${LABEL}, so the node cannot tell whether it recorded the key or an earlier delivery whose outcome is unknown had taken it; the key stays. Check in the platform whether its e-mail went out; to send it, run it once with another key, e.g. "${key}-again".`;
				skipped.push({ kind: 'skipped', itemIndexes: [itemIndex], reason, unknown: true });
			} else {
				const reason = `Not sent: an earlier execution took this ${LABEL} and this node does not know whether the service queued its transaction (n8n may have stopped, the answer was lost, or in queue mode another worker is sending it now). Check in the platform whether its e-mail went out; to send it on purpose, run it once with another key, e.g. "${key}-again".`;
				skipped.push({ kind: 'skipped', itemIndexes: [itemIndex], reason, unknown: true });
			}
		}
		return { skipped, released };
	}

	/**
	 * Settles the keys of a request's items by its outcome: `settled()` waits for what the
	 * execution says of them. A fault of this code there leaves each key as its claim recorded it.
	 */
	settle(outcome: Outcome): void {
		const settling = this.settleNow(outcome).catch((fault: unknown) => {
			// A key to keep stays as its claim recorded it; one to give back stays too, and its item says so.
			const notReleased = outcome.itemIndexes.filter((_, position) => !mayHaveQueued(outcome, position));
			if (notReleased.length > 0) this.outcomes.push({ kind: 'notReleased', itemIndexes: notReleased, reason: (fault as Error).message });
		});
		this.settlements.push(settling);
	}

	/**
	 * Once the keys of every request are settled as far as the execution says (given back, or
	 * handed to `watchKept`); an item whose key the store did not mark free, and that was not sent
	 * after all, says so, as does one whose key a fault left claimed. The keys stay held in this process until their first confirmation round
	 * and every removal round have gone, after the execution; under `n8n execute`, whose process
	 * ends with the execution, before it ends, so that the marks are written.
	 */
	async settled(): Promise<void> {
		try {
			await Promise.all(this.settlements);
			for (const [itemIndex, reason] of this.unmarked) this.outcomes.push({ kind: 'notReleased', itemIndexes: [itemIndex], reason });
			// Claimed and never settled: a fault of this code came between; its request may have left, so the key stays.
			for (const itemIndex of this.claimed.keys()) this.outcomes.push({ kind: 'notReleased', itemIndexes: [itemIndex], reason: 'the node failed before it settled the key' });
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

	/**
	 * Gives back this execution's keys of `itemIndexes`, of items whose request the service did
	 * not act on or that did not leave, or settled as not queued: each key with its "free" mark
	 * (so that a delivery whose read finds the key finds the mark too), watched like a kept key.
	 * Nothing waiting to be sent holds a key, so should n8n die, the next delivery sends it; the
	 * item's next claim records the next generation. Where the store did not mark it, the item is
	 * `unmarked`.
	 */
	async release(itemIndexes: readonly number[]): Promise<void> {
		const mine = itemIndexes.filter((itemIndex) => this.claimed.delete(itemIndex));
		if (mine.length === 0) return;
		const entries = mine.flatMap((itemIndex) => {
			const { free, freed } = this.marksOf(itemIndex);
			return [this.entryOf(itemIndex), free, freed];
		});
		for (const itemIndex of mine) this.toNextGeneration(itemIndex);
		let failure: unknown;
		for (let attempt = 1; attempt <= RELEASE_ATTEMPTS; attempt++) {
			try {
				await this.store.record(entries);
				this.heldUntil.push(watchKept(this.context, this.store, entries, [], monotonicMs(), 'released'));
				return;
			} catch (error) {
				failure = error;
			}
		}
		for (const itemIndex of mine) this.unmarked.set(itemIndex, (failure as Error).message);
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
		for (const itemIndex of kept) {
			this.claimed.delete(itemIndex);
			this.unmarked.delete(itemIndex);
		}
		const marks = queued.map((itemIndex) => this.marksOf(itemIndex).sent);
		this.heldUntil.push(watchKept(this.context, this.store, kept.map((itemIndex) => this.entryOf(itemIndex)), marks, writtenAtMs));
		if (released.length > 0) await this.release(released);
	}
}
