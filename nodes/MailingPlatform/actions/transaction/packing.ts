/**
 * Packing transactions into request bodies: JSON arrays in input order, the fewest within a byte
 * limit, one body at a time. No n8n or HTTP here, and nothing but the body buffer is changed.
 */
import { thousands } from '../../helpers/numbers';

/** One request body: the JSON array of the transactions of `order[start]` to `order[end - 1]`. */
export interface Body {
	readonly start: number;
	readonly end: number;
	readonly bytes: Buffer;
}

/** A transaction that cannot go in any body, `order[start]`, and why; `end` is the position after it. */
export interface Refusal {
	readonly start: number;
	readonly end: number;
	readonly refusal: { problem: string; hint: string };
}

/**
 * Transactions are serialized a chunk at a time, one `JSON.stringify` per chunk, and the text is
 * written straight into the body. A chunk's length is chosen from the last chunk's size to aim
 * below V8's large-object size (128 KiB), so that its text mostly dies young instead of waiting
 * in the old generation for a full collection; a chunk of larger transactions can exceed it.
 */
const CHUNK_CHARS = 64 * 1024;

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

export interface PackingLimits {
	/**
	 * The largest body to pack; lower than `maxBytes` once the service refused a body as too large,
	 * or where the body joins other executions' transactions. Read at each decision, so it may
	 * change between bodies.
	 */
	limit: number;
	/** Max Request Bytes: a transaction larger alone is refused. Above `limit` alone, it is a body of its own. */
	maxBytes: number;
}

/**
 * The bodies of the items `order[from]` onwards (`order` holds item indexes of `transactions`),
 * each within the limit, and the refusals of transactions no body can carry. Greedy in order,
 * which gives the fewest requests for an order-preserving split; a body holds consecutive items
 * only. Every body is written into the same buffer: use it before asking for the next one.
 */
export function* packBodies(
	transactions: ReadonlyArray<unknown>,
	order: readonly number[],
	from: number,
	limits: Readonly<PackingLimits>,
): Generator<Body | Refusal> {
	const writer = new BodyWriter(limits);
	const refused = (position: number, problem: string, hint: string) => ({ start: position, end: position + 1, refusal: { problem, hint } });

	function* packOne(position: number): Generator<Body | Refusal> {
		let json: string;
		try {
			json = JSON.stringify(transactions[order[position]]);
		} catch (error) {
			if (!writer.isEmpty()) yield writer.take();
			const hint = 'Remove the value JSON cannot hold (e.g. a BigInt or a circular reference).';
			yield refused(position, `The transaction cannot be written as JSON: ${(error as Error).message}`, hint);
			return;
		}
		const bytes = Buffer.byteLength(json, 'utf8');
		if (!writer.isEmpty() && !writer.fitsOne(bytes)) yield writer.take();
		if (writer.fitsOne(bytes)) writer.writeOne(position, json, bytes);
		else if (bytes + 2 <= limits.maxBytes) yield { start: position, end: position + 1, bytes: Buffer.from(`[${json}]`, 'utf8') };
		else {
			const problem = `The transaction alone is ${thousands(bytes)} bytes as JSON, more than one request may carry (${thousands(limits.maxBytes)} bytes)`;
			yield refused(position, problem, 'Make its content or attachments smaller.');
		}
	}

	let chunkLength = 8;
	for (let start = from; start < order.length; ) {
		const end = Math.min(order.length, start + chunkLength);
		let json: string | undefined;
		try {
			json = JSON.stringify(order.slice(start, end).map((itemIndex) => transactions[itemIndex]));
		} catch {
			json = undefined;
		}
		if (json !== undefined) chunkLength = Math.max(1, Math.floor((CHUNK_CHARS * (end - start)) / Math.max(1, json.length)));
		if (json !== undefined && writer.fitsChunk(json)) writer.writeChunk(start, end, json);
		else for (let position = start; position < end; position++) yield* packOne(position);
		start = end;
	}
	if (!writer.isEmpty()) yield writer.take();
}

/** Bodies of several executions as one JSON array: `[a]` and `[b,c]` make `[a,b,c]`. */
export function joinBodies(bodies: readonly Buffer[]): Buffer {
	if (bodies.length === 1) return bodies[0];
	const pieces = bodies.map((bytes, index) => bytes.subarray(index === 0 ? 0 : 1, bytes.length - 1));
	const joined = Buffer.allocUnsafe(pieces.reduce((sum, piece) => sum + piece.length, 0) + pieces.length);
	let offset = 0;
	for (const [index, piece] of pieces.entries()) {
		offset += piece.copy(joined, offset);
		// A comma after each piece, the closing bracket after the last.
		joined[offset++] = index === pieces.length - 1 ? CLOSE_BRACKET : COMMA;
	}
	return joined;
}

/** Writes array text into one reused buffer, grown as the bodies need. */
class BodyWriter {
	private buffer: Buffer | undefined;

	/** The positions in the order of the body's first transaction and of the one after its last. */
	private start = 0;

	private end = 0;

	/** Where the body's closing bracket is; -1 while it is empty. */
	private closeAt = -1;

	constructor(private readonly limits: Readonly<PackingLimits>) {}

	private get limit(): number {
		return this.limits.limit;
	}

	isEmpty(): boolean {
		return this.closeAt < 0;
	}

	/** Whether a chunk's array text fits whole. A UTF-16 unit is at most 3 bytes of UTF-8, so most chunks need no counting. */
	fitsChunk(json: string): boolean {
		// The chunk's `[` goes where the body's `]` is (and becomes a comma); its `]` closes the body.
		const offset = Math.max(0, this.closeAt);
		return offset + 3 * json.length <= this.limit || offset + Buffer.byteLength(json, 'utf8') <= this.limit;
	}

	writeChunk(start: number, end: number, json: string): void {
		if (this.isEmpty()) this.start = start;
		this.end = end;
		const offset = Math.max(0, this.closeAt);
		const mostBytes = offset + 3 * json.length;
		const buffer = this.reserve(mostBytes <= this.capacity() ? mostBytes : offset + Buffer.byteLength(json, 'utf8'));
		const written = buffer.write(json, offset, 'utf8');
		if (this.closeAt >= 0) buffer[offset] = COMMA;
		this.closeAt = offset + written - 1;
	}

	/** Whether one transaction of `bytes` fits: `[` or `,` before it and `]` after. */
	fitsOne(bytes: number): boolean {
		return Math.max(0, this.closeAt) + bytes + 2 <= this.limit;
	}

	writeOne(position: number, json: string, bytes: number): void {
		if (this.isEmpty()) this.start = position;
		this.end = position + 1;
		let offset = Math.max(0, this.closeAt);
		const buffer = this.reserve(offset + bytes + 2);
		buffer[offset++] = this.closeAt < 0 ? OPEN_BRACKET : COMMA;
		offset += buffer.write(json, offset, 'utf8');
		buffer[offset] = CLOSE_BRACKET;
		this.closeAt = offset;
	}

	/** The body written so far; the buffer is written over once more is packed. */
	take(): Body {
		const body = { start: this.start, end: this.end, bytes: this.reserve(this.closeAt + 1).subarray(0, this.closeAt + 1) };
		this.closeAt = -1;
		return body;
	}

	private capacity(): number {
		return this.buffer?.length ?? 0;
	}

	/**
	 * The buffer, with room for `bytes`. It grows with the bodies, doubling up to the limit, so a
	 * body of one order costs about its own size, not the limit's: the buffer lives while the
	 * request is under way, and one of the limit's size per execution is freed only by a full GC.
	 */
	private reserve(bytes: number): Buffer {
		if (this.buffer !== undefined && bytes <= this.buffer.length) return this.buffer;
		const grown = Buffer.allocUnsafe(Math.max(bytes, Math.min(this.limit, 2 * this.capacity())));
		this.buffer?.copy(grown, 0, 0, this.closeAt + 1);
		return (this.buffer = grown);
	}
}
