/**
 * What becomes of a Deduplication Key in n8n's store once its request returned. The service's
 * answer decided the item's outcome, so none of this holds the execution: it goes on in the n8n
 * process after the execution ended, and says in n8n's log what it could not do.
 *
 * Another process (a queue-mode worker) whose call read the history before a key was written and
 * writes after it undoes the key; n8n's store has no lock and no way to tell. Such a call
 * usually takes milliseconds from its read to its write, longer on a starved CPU. So a kept key
 * (or a key's release, which is written too, never removed: a removal that such a call undid
 * could not be seen) is recorded again at each of `CONFIRM_AFTER_MS` after it was last written
 * (each round rides the node's next store call, and so at a steady stream of orders the claims'
 * rewrite of the row); a round that finds it gone has written it again, and the rounds start
 * over from then, at most `MAX_CONFIRM_ROUNDS` in all, and none once this process alone has added
 * History Size entries to the history since (it may have dropped the key by then). A call that
 * takes longer than the last round's wait from its read to its write still undoes a key unseen.
 * Marks recorded only to read them are removed `REMOVE_ROUNDS` times, some 100 ms apart and
 * within `REMOVE_WITHIN_MS` of the first (removal cannot be read back).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { KeyStore } from '../../helpers/keyStore';
import { monotonicMs } from '../../transport/accountGate';

/**
 * A key's entry in n8n's store, and the "sent" mark a key the service queued has beside it, so
 * that a later delivery can tell it from a key whose execution never learned the outcome (n8n
 * stopped, or the answer was lost): the history keeps two entries per key. An execution that did
 * not send its order writes the key's "free" mark and its twin instead, and the next delivery
 * claims the key's next generation (`key#2 …`), so that an entry once written never has to be
 * removed for good.
 * Marks are of a generation too: a reading walks an order's generations, each read by recording
 * its mark, and a mark one reading wrote that another process's write brought back misleads only
 * a reading of that generation, never the walk's next. Each has its own prefix, so no key (not
 * even "sent 5310") reads as another key's entry.
 */
const ofGeneration = (prefix: string, generation: number) => (generation === 1 ? prefix : `${prefix}#${generation}`);
export const keyEntry = (key: string, generation = 1) => `${ofGeneration('key', generation)} ${key}`;
export const freeMark = (key: string, generation: number) => `${ofGeneration('free', generation)} ${key}`;
export const sentMarker = (key: string, generation: number) => `${ofGeneration('sent', generation)} ${key}`;
/**
 * The "free" mark's twin, written with it: a reading whose call recording the "free" mark failed
 * asks by this one, which that call cannot have written.
 */
export const freedMark = (key: string, generation: number) => `${ofGeneration('freed', generation)} ${key}`;
const keyOfEntry = (entry: string) => entry.replace(/^(key|free|freed|sent)(#\d+)? /, '');

export const CONFIRM_AFTER_MS = [100, 500, 1_500, 4_000];
const MAX_CONFIRM_ROUNDS = 12;
const REMOVE_ROUNDS = 3;
const roundDelayMs = () => 50 + Math.random() * 100;
/**
 * A later removal round starts within this of the first, or not at all: it is there for a stale
 * write of milliseconds, and a round that n8n's busy store held up longer could remove the key
 * another process claimed since for the same order.
 */
const REMOVE_WITHIN_MS = 1000;

const quoted = (entries: Iterable<string>) => [...new Set([...entries].map(keyOfEntry))].map((key) => `"${key}"`).join(', ');

/** A warning in n8n's log: the execution that sent these orders has ended, so it cannot carry it. */
function warn(context: IExecuteFunctions, keys: Iterable<string>, what: string): void {
	context.logger.warn(`Mailing Platform node "${context.getNode().name}", Deduplication Key ${quoted(keys)}: ${what}`);
}

/** What n8n's log says where a watch could not hold its entries: of kept keys, or of keys' releases. */
const WARNINGS = {
	kept: {
		gaveUp: "another n8n process kept writing this node's history. A later delivery of its order may send it again.",
		undone: "another n8n process's write removed it from n8n's store after its transaction was sent, and this process recorded it again: a delivery of its order to another n8n process in between may have been sent again.",
		failed: 'a delivery of its order to another n8n process may send it again.',
	},
	released: {
		gaveUp: "another n8n process kept writing this node's history. A later delivery of its order may be skipped as outcome unknown.",
		undone: "another n8n process's write removed its release from n8n's store, and this process recorded it again: should a delivery of its order have been sent in between, a later one may send it again.",
		failed: 'a later delivery of its order may be skipped as outcome unknown.',
	},
};

/**
 * Watches `kept` in the store (keys, or keys with their "free" marks), writing `marks` with the
 * first round (they only tell a later delivery "sent" from "outcome unknown", so they are not
 * watched); resolves once that round has gone, while the later rounds go on.
 */
export function watchKept(context: IExecuteFunctions, store: KeyStore, kept: readonly string[], marks: readonly string[], writtenAtMs: number, what: keyof typeof WARNINGS = 'kept'): Promise<void> {
	const warning = WARNINGS[what];
	if (kept.length === 0) return Promise.resolve();
	let marked = () => {};
	const firstRound = new Promise<void>((resolve) => (marked = resolve));
	void (async () => {
		const undone = new Set<string>();
		const addedBefore = store.added();
		let lastWrittenMs = writtenAtMs;
		try {
			for (let round = 1, step = 0; step < CONFIRM_AFTER_MS.length; round++) {
				if (round > MAX_CONFIRM_ROUNDS) {
					warn(context, kept, `in ${MAX_CONFIRM_ROUNDS} tries n8n's store did not keep it: ${warning.gaveUp}`);
					return;
				}
				const recordedBefore = await store.confirm(round === 1 ? [...kept, ...marks] : kept, lastWrittenMs + CONFIRM_AFTER_MS[step]);
				marked();
				// The history may have dropped the keys by its size since: a round would bring them back.
				if (store.added() - addedBefore >= store.maxEntries / 2) break;
				const gone = kept.filter((key) => !recordedBefore.has(key));
				for (const key of gone) undone.add(key);
				step = gone.length === 0 ? step + 1 : 0;
				if (gone.length > 0) lastWrittenMs = monotonicMs();
			}
			if (undone.size > 0) {
				warn(context, undone, warning.undone);
			}
		} catch (error) {
			warn(context, kept, `could not be confirmed in n8n's store (${(error as Error).message}): ${warning.failed}`);
		} finally {
			marked();
		}
	})();
	return firstRound;
}

/**
 * Removes `entries` in `REMOVE_ROUNDS` rounds, a failed one tried again at once: `removed`
 * resolves at the first that went through (and rejects when none did), `ended` once all have gone.
 */
export function removeInRounds(store: KeyStore, entries: readonly string[]): { removed: Promise<void>; ended: Promise<void> } {
	if (entries.length === 0) return { removed: Promise.resolve(), ended: Promise.resolve() };
	let went!: () => void;
	let failed!: (error: unknown) => void;
	const removed = new Promise<void>((resolve, reject) => {
		went = resolve;
		failed = reject;
	});
	const ended = (async () => {
		let failure: unknown;
		let anyWent = false;
		let latestStartMs = Number.POSITIVE_INFINITY;
		for (let round = 1; round <= REMOVE_ROUNDS; round++) {
			try {
				// Apart only once one went: until then the removal, which the execution may be waiting for, has not begun.
				await store.remove(entries, anyWent ? monotonicMs() + roundDelayMs() : undefined, latestStartMs);
				anyWent = true;
				went();
			} catch (error) {
				failure = error;
			}
			if (round === 1) latestStartMs = monotonicMs() + REMOVE_WITHIN_MS;
		}
		if (!anyWent) failed(failure);
	})();
	return { removed, ended };
}
