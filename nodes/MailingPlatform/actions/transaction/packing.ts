/**
 * How transactions become request bodies: JSON arrays packed in input order, the fewest within a
 * byte limit, one body at a time. The one packer of Transaction › Create, for the first packing
 * and for re-packing a body the service refused as too large. Pure: no n8n or HTTP here.
 */

export const SPEC_MAX_REQUEST_BYTES = 9_000_000;

/** One transaction accepted for sending, with the input item it came from. */
export interface PreparedTransaction {
	readonly itemIndex: number;
	readonly transaction: Record<string, unknown>;
}

/** One request body: the JSON array of the transactions of `itemIndexes`, in that order. */
export interface Body {
	readonly itemIndexes: readonly number[];
	readonly bytes: Buffer;
}

/** What the packer yields, in input order: a full body, or a transaction JSON cannot express (a BigInt, a cycle). */
export type Packed = { kind: 'body'; body: Body } | { kind: 'unserializable'; itemIndex: number; error: Error };

/**
 * Transactions are serialized a chunk at a time, one `JSON.stringify` per chunk, and the text is
 * written straight into the body. A chunk stays below V8's large-object size (128 KiB), so its
 * text dies young instead of waiting in the old generation for a full collection.
 */
const CHUNK_CHARS = 64 * 1024;

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

/**
 * The bodies for `transactions`, each within `maxBytes` unless one transaction alone is larger:
 * that one gets a body of its own, for the caller to refuse or to try. Greedy in order, which gives
 * the fewest requests for an order-preserving split. Every body is written into the same buffer:
 * use it (send it, read it) before asking for the next one, so one body's memory serves them all.
 */
export function* packBodies(transactions: readonly PreparedTransaction[], maxBytes: number): Generator<Packed> {
	const writer = new BodyWriter(maxBytes);
	const body = (): Packed => ({ kind: 'body', body: writer.take() });

	function* packOne(entry: PreparedTransaction): Generator<Packed> {
		let json: string;
		try {
			json = JSON.stringify(entry.transaction);
		} catch (error) {
			yield { kind: 'unserializable', itemIndex: entry.itemIndex, error: error as Error };
			return;
		}
		const bytes = Buffer.byteLength(json, 'utf8');
		if (!writer.isEmpty() && !writer.fitsOne(bytes)) yield body();
		if (writer.fitsOne(bytes)) writer.writeOne(entry.itemIndex, json);
		else yield { kind: 'body', body: { itemIndexes: [entry.itemIndex], bytes: Buffer.from(`[${json}]`, 'utf8') } };
	}

	let chunkLength = 8;
	for (let start = 0; start < transactions.length; ) {
		const chunk = transactions.slice(start, start + chunkLength);
		start += chunk.length;
		let json: string | undefined;
		try {
			json = JSON.stringify(chunk.map((entry) => entry.transaction));
		} catch {
			json = undefined;
		}
		if (json !== undefined) chunkLength = Math.max(1, Math.floor((CHUNK_CHARS * chunk.length) / Math.max(1, json.length)));
		if (json !== undefined && writer.fitsChunk(json)) writer.writeChunk(chunk, json);
		else for (const entry of chunk) yield* packOne(entry);
	}
	if (!writer.isEmpty()) yield body();
}

/** Writes array text into one reused buffer. */
class BodyWriter {
	private buffer: Buffer | undefined;

	private itemIndexes: number[] = [];

	/** Where the body's closing bracket is; -1 while it is empty. */
	private closeAt = -1;

	constructor(private readonly maxBytes: number) {}

	isEmpty(): boolean {
		return this.closeAt < 0;
	}

	/** Whether a chunk's array text fits whole. A UTF-16 unit is at most 3 bytes of UTF-8, so most chunks need no counting. */
	fitsChunk(json: string): boolean {
		// The chunk's `[` goes where the body's `]` is (and becomes a comma); its `]` closes the body.
		const offset = Math.max(0, this.closeAt);
		return offset + 3 * json.length <= this.maxBytes || offset + Buffer.byteLength(json, 'utf8') <= this.maxBytes;
	}

	writeChunk(chunk: readonly PreparedTransaction[], json: string): void {
		const offset = Math.max(0, this.closeAt);
		const buffer = this.ensureBuffer();
		const written = buffer.write(json, offset, 'utf8');
		if (this.closeAt >= 0) buffer[offset] = COMMA;
		this.closeAt = offset + written - 1;
		for (const entry of chunk) this.itemIndexes.push(entry.itemIndex);
	}

	/** Whether one transaction of `bytes` fits: `[` or `,` before it and `]` after. */
	fitsOne(bytes: number): boolean {
		return Math.max(0, this.closeAt) + bytes + 2 <= this.maxBytes;
	}

	writeOne(itemIndex: number, json: string): void {
		const buffer = this.ensureBuffer();
		let offset = Math.max(0, this.closeAt);
		buffer[offset++] = this.closeAt < 0 ? OPEN_BRACKET : COMMA;
		offset += buffer.write(json, offset, 'utf8');
		buffer[offset] = CLOSE_BRACKET;
		this.closeAt = offset;
		this.itemIndexes.push(itemIndex);
	}

	/** The body written so far; the buffer is written over once more is packed. */
	take(): Body {
		const body = { itemIndexes: this.itemIndexes, bytes: this.ensureBuffer().subarray(0, this.closeAt + 1) };
		this.itemIndexes = [];
		this.closeAt = -1;
		return body;
	}

	private ensureBuffer(): Buffer {
		return (this.buffer ??= Buffer.allocUnsafe(this.maxBytes));
	}
}

/** The transactions of a body as the service receives them, paired with their items again. */
export function unpackBody(body: Body): PreparedTransaction[] {
	const transactions = JSON.parse(body.bytes.toString('utf8')) as Array<Record<string, unknown>>;
	return transactions.map((transaction, index) => ({ itemIndex: body.itemIndexes[index], transaction }));
}
