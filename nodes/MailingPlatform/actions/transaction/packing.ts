/**
 * How transactions become request bodies: serialized several per call and written straight
 * into bodies packed in order, the fewest within a byte limit. Pure: no n8n or HTTP here.
 */

import { InputProblem } from '../../helpers/input';
import { thousands } from '../../helpers/numbers';

export const SPEC_MAX_REQUEST_BYTES = 9_000_000;

/** One transaction accepted for sending, with the input item it came from. */
export interface PreparedTransaction {
	readonly itemIndex: number;
	readonly transaction: Record<string, unknown>;
}

/** One transaction serialized on its own: its JSON text and that text's UTF-8 size. */
export interface SerializedTransaction {
	readonly itemIndex: number;
	/** Emptied by `release` once the request carrying it has been answered. */
	json: string;
	readonly bytes: number;
}

/** A request body ready to send: the JSON array of the prepared transactions [start, end). */
export interface PackedBody {
	readonly start: number;
	readonly end: number;
	readonly body: Buffer;
}

export function serialize(itemIndex: number, transaction: Record<string, unknown>): SerializedTransaction {
	const json = JSON.stringify(transaction);
	return { itemIndex, json, bytes: Buffer.byteLength(json, 'utf8') };
}

/** Bytes of the JSON array body holding transactions [start, end): brackets and commas included. */
export function arrayBodyBytes(transactions: readonly SerializedTransaction[], start: number, end: number): number {
	let total = 2 + Math.max(0, end - start - 1);
	for (let index = start; index < end; index++) total += transactions[index].bytes;
	return total;
}

/**
 * The end (exclusive) of the largest run of transactions from `start` whose array body stays
 * within `maxBytes`. Always takes at least one, so the caller must refuse transactions that
 * cannot fit alone. Greedy in order gives the fewest requests for an order-preserving split.
 */
export function nextBatchEnd(transactions: readonly SerializedTransaction[], start: number, maxBytes: number): number {
	let body = 2 + transactions[start].bytes;
	let end = start + 1;
	while (end < transactions.length && body + 1 + transactions[end].bytes <= maxBytes) {
		body += 1 + transactions[end].bytes;
		end++;
	}
	return end;
}

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

/**
 * The array body exactly as sent: `[` + transactions [start, end) joined by `,` + `]`, encoded
 * straight into one buffer of the known size, with no joined string to build and encode again.
 */
export function arrayBody(transactions: readonly SerializedTransaction[], start: number, end: number): Buffer {
	const body = Buffer.allocUnsafe(arrayBodyBytes(transactions, start, end));
	let offset = 0;
	body[offset++] = OPEN_BRACKET;
	for (let index = start; index < end; index++) {
		if (index > start) body[offset++] = COMMA;
		offset += body.write(transactions[index].json, offset, 'utf8');
	}
	body[offset] = CLOSE_BRACKET;
	return body;
}

/** Drops the texts of transactions [start, end) once answered: 100 MB of JSON need not outlive its requests. */
export function release(transactions: readonly SerializedTransaction[], start: number, end: number): void {
	for (let index = start; index < end; index++) transactions[index].json = '';
}

/** A chunk aims at this share of a body: few stringify calls, and little redone at a body's end. */
const CHUNKS_PER_BODY = 64;
const MAX_CHUNK_LENGTH = 512;

/**
 * Packs transactions into request bodies as they are accepted, byte for byte what `arrayBody`
 * gives for the batches `nextBatchEnd` chooses, at far less cost. `JSON.stringify` of an array
 * is `[` + its elements' JSON joined by `,` + `]`, so several transactions are serialized in
 * one call and that text is written straight into the body; only a chunk that crosses the end
 * of a body is serialized again one transaction at a time, to find where the body ends. A
 * transaction that cannot be sent (too large for any body, or not serializable) goes to
 * `refuse`, which may throw, and is left out.
 */
export class BodyPacker {
	private readonly transactions: PreparedTransaction[] = [];

	private readonly bodies: PackedBody[] = [];

	private pending: PreparedTransaction[] = [];

	private chunkLength = 8;

	private body: Buffer | undefined;

	/** Where the current body's closing bracket is; -1 while it is empty. */
	private closeAt = -1;

	private bodyStart = 0;

	constructor(
		private readonly maxBytes: number,
		private readonly refuse: (itemIndex: number, problem: Error) => void,
	) {}

	add(itemIndex: number, transaction: Record<string, unknown>): void {
		this.pending.push({ itemIndex, transaction });
		if (this.pending.length >= this.chunkLength) this.flush();
	}

	/** Packs what was added so far, so that a refusal of an earlier item comes before a later one. */
	flush(): void {
		const chunk = this.pending;
		if (chunk.length === 0) return;
		this.pending = [];
		let json: string;
		try {
			json = JSON.stringify(chunk.map((entry) => entry.transaction));
		} catch {
			for (const entry of chunk) this.addOne(entry);
			return;
		}
		this.chunkLength = Math.max(1, Math.min(MAX_CHUNK_LENGTH, Math.floor((this.maxBytes * chunk.length) / (CHUNKS_PER_BODY * json.length))));
		// The chunk's `[` goes where the body's `]` is (and becomes a comma); its `]` closes the body.
		const offset = Math.max(0, this.closeAt);
		// A UTF-16 unit is at most 3 bytes of UTF-8, so most chunks fit without counting their bytes.
		if (offset + 3 * json.length > this.maxBytes && offset + Buffer.byteLength(json, 'utf8') > this.maxBytes) {
			for (const entry of chunk) this.addOne(entry);
			return;
		}
		const body = (this.body ??= Buffer.allocUnsafe(this.maxBytes));
		const written = body.write(json, offset, 'utf8');
		if (this.closeAt >= 0) body[offset] = COMMA;
		this.closeAt = offset + written - 1;
		for (const entry of chunk) this.transactions.push(entry);
	}

	/** Every transaction accepted, in input order, and the bodies that carry them. */
	finish(): { transactions: PreparedTransaction[]; bodies: PackedBody[] } {
		this.flush();
		this.closeBody();
		return { transactions: this.transactions, bodies: this.bodies };
	}

	private addOne(entry: PreparedTransaction): void {
		let serialized: SerializedTransaction;
		try {
			serialized = serialize(entry.itemIndex, entry.transaction);
		} catch (error) {
			this.refuse(entry.itemIndex, error as Error);
			return;
		}
		if (serialized.bytes + 2 > this.maxBytes) {
			this.refuse(
				entry.itemIndex,
				new InputProblem(
					`The transaction alone is ${thousands(serialized.bytes)} bytes as JSON, more than one request may carry (${thousands(this.maxBytes)} bytes)`,
					'Make its content or attachments smaller.',
				),
			);
			return;
		}
		if (this.closeAt >= 0 && this.closeAt + 2 + serialized.bytes > this.maxBytes) this.closeBody();
		const body = (this.body ??= Buffer.allocUnsafe(this.maxBytes));
		let offset = Math.max(0, this.closeAt);
		body[offset++] = this.closeAt < 0 ? OPEN_BRACKET : COMMA;
		offset += body.write(serialized.json, offset, 'utf8');
		body[offset] = CLOSE_BRACKET;
		this.closeAt = offset;
		this.transactions.push(entry);
	}

	private closeBody(): void {
		if (this.body === undefined || this.closeAt < 0) return;
		const length = this.closeAt + 1;
		// A body much smaller than the limit gets a buffer of its own size, not a whole one.
		const body = length < this.maxBytes / 2 ? Buffer.from(this.body.subarray(0, length)) : this.body.subarray(0, length);
		this.bodies.push({ start: this.bodyStart, end: this.transactions.length, body });
		this.body = undefined;
		this.closeAt = -1;
		this.bodyStart = this.transactions.length;
	}
}
