/**
 * Reading a key's marks in n8n's store, which reads only by writing: each mark is recorded, and
 * was there if the store says so. Every mark a reading may have written is removed after it.
 */
import type { KeyStore } from '../../helpers/keyStore';
import { removeInRounds } from './keyRounds';

/** The marks of one key's generation (keyRounds.ts): "sent", "free", and the "free" mark's twin. */
export interface KeyMarks {
	sent: string;
	free: string;
	freed: string;
}

/** Records `entries`, asking once more where the call fails: answers those recorded before, and the first call's failure (it may have written them). */
export async function recordAskingAgain(store: KeyStore, entries: readonly string[]): Promise<{ recordedBefore: Set<string>; failedFirst?: unknown }> {
	try {
		return { recordedBefore: await store.record(entries) };
	} catch (failedFirst) {
		return { recordedBefore: await store.record(entries), failedFirst };
	}
}

export interface Reading {
	/** Positions in the keys read of those with their "sent" mark, and of those marked free. */
	sent: Set<number>;
	free: Set<number>;
	/** Where the keys could not be read: a call failed, or a "sent" mark was found only on asking again. */
	failure?: unknown;
	/** Where the reading's marks could not be removed: a "sent" mark it wrote may stay. */
	markMayStay: boolean;
	/** Once every removal round has gone. */
	ended: Promise<void>;
}

/**
 * Reads the "sent" marks first, then, of a key found without one, its "free" mark, or where that
 * call failed (it may have written it) its twin. A "free" mark so written goes with the "sent"
 * mark written before it, so that neither a reader killed in between nor a write brought back
 * leaves the one without the other.
 */
export async function readMarks(store: KeyStore, keys: readonly KeyMarks[]): Promise<Reading> {
	const sent = new Set<number>();
	const free = new Set<number>();
	const written = new Set<string>();
	const positions = keys.map((_, position) => position);
	/** Keys whose "sent" mark, if there, may be this reading's. */
	let sentUnclear: readonly number[] = positions;
	let failure: unknown;
	try {
		for (const { sent: mark } of keys) written.add(mark);
		const { recordedBefore, failedFirst } = await recordAskingAgain(store, keys.map((marks) => marks.sent));
		for (const position of positions) if (recordedBefore.has(keys[position].sent)) sent.add(position);
		sentUnclear = failedFirst === undefined ? [] : [...sent];
		if (failedFirst === undefined) for (const position of sent) written.delete(keys[position].sent);
		else if (sent.size > 0) failure = failedFirst;
		if (failure === undefined) await readFree(store, keys, positions.filter((position) => !sent.has(position)), free, written);
	} catch (error) {
		failure = error;
	}
	// Such a mark may have stood over the "free" marks of a reader killed in between: they go with it.
	for (const position of sentUnclear) written.add(keys[position].free).add(keys[position].freed);
	const { removed, ended } = removeInRounds(store, [...written]);
	try {
		await removed;
		return { sent, free, failure, markMayStay: false, ended };
	} catch (error) {
		return { sent, free, failure: failure ?? error, markMayStay: true, ended };
	}
}

/** Reads the "free" marks of the keys at `positions` (their twins where that call failed) into `free`; `written` keeps the marks it may have written. */
async function readFree(store: KeyStore, keys: readonly KeyMarks[], positions: readonly number[], free: Set<number>, written: Set<string>): Promise<void> {
	for (const position of positions) written.add(keys[position].free);
	let markOf = (marks: KeyMarks) => marks.free;
	let recordedBefore: Set<string>;
	try {
		recordedBefore = await store.record(positions.map((position) => keys[position].free));
	} catch {
		markOf = (marks) => marks.freed;
		for (const position of positions) written.add(keys[position].freed);
		recordedBefore = await store.record(positions.map((position) => keys[position].freed));
	}
	for (const position of positions) {
		if (!recordedBefore.has(markOf(keys[position]))) continue;
		free.add(position);
		// Found, the mark was there before; a twin was written with its "free" mark.
		written.delete(keys[position].free);
		written.delete(keys[position].freed);
	}
}
