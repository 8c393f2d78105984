import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../MailingPlatform/helpers/values';

/**
 * What the trigger remembers between polls, in the workflow's static data only, so that any
 * worker of a queue-mode setup continues where the last one stopped. No block time is trusted
 * to find the position: the service's times have no zone and may be written late.
 */
export interface PollState {
	/** n8n's clock (epoch ms) when the last successful poll began. */
	lastPollMs?: number;
	/** The `from_date` of the last successful poll; the next one never starts earlier. */
	fromMs?: number;
	/** Keys of every block that poll's query returned: all it can return again. */
	seen?: string[];
}

/** A 53-bit hash (cyrb53) of `text`, as base 36; two seeds make a key of about 106 bits. */
function hash53(text: string, seed: number): string {
	let h1 = 0xdeadbeef ^ seed;
	let h2 = 0x41c6ce57 ^ seed;
	for (let index = 0; index < text.length; index++) {
		const code = text.charCodeAt(index);
		h1 = Math.imul(h1 ^ code, 2654435761);
		h2 = Math.imul(h2 ^ code, 1597334677);
	}
	h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
	h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
	return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * Identifies one block record: every field of the block as the service sent it (time as text,
 * statuses, reason, any element the spec does not name), its contact by ID. The contact's other
 * data (e.g. `updated`, field values) is its current state and may change between polls, which
 * would make the same block look new. Hashed, so that many remembered blocks stay small.
 */
export function blockKey(block: IDataObject): string {
	const { contact, ...own } = block;
	delete own.timestampIso;
	const contactId = isPlainObject(contact) ? (contact.id ?? contact.email ?? null) : (contact ?? null);
	const text = JSON.stringify([own, contactId]);
	return `${hash53(text, 0)}.${hash53(text, 1)}`;
}

/**
 * Where the next query starts: the previous poll's start minus the lookback, never earlier than
 * the previous query (whose blocks are all remembered). First poll: the lookback before now.
 */
export function queryStart(state: PollState, nowMs: number, lookbackMs: number): number {
	if (state.lastPollMs === undefined) return nowMs - lookbackMs;
	return Math.max(state.lastPollMs - lookbackMs, state.fromMs ?? Number.NEGATIVE_INFINITY);
}
