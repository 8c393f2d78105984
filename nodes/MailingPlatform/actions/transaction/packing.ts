/**
 * Packing transactions into request bodies: JSON arrays in input order, the fewest within a byte
 * limit, one body at a time. Pure: no n8n or HTTP here.
 */
import type { SendableRecord } from './outcomes';

/** One request body: the JSON array of the transactions of `records`, in that order. */
export interface Body {
	readonly records: readonly SendableRecord[];
	readonly bytes: Buffer;
}

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
 * The bodies for `records`, each within `limit()` (read before each body, so a lowered limit
 * applies to the next one) unless one transaction alone is larger: that one gets a body of its
 * own, for the caller to refuse. A transaction JSON cannot express goes to `unwritable`. Greedy
 * in order, which gives the fewest requests for an order-preserving split. Every body is written
 * into the same buffer: use it before asking for the next one.
 */
export function* packBodies(
	records: readonly SendableRecord[],
	limit: () => number,
	unwritable: (record: SendableRecord, error: Error) => void,
): Generator<Body> {
	const writer = new BodyWriter(limit);

	function* packOne(record: SendableRecord): Generator<Body> {
		let json: string;
		try {
			json = JSON.stringify(record.transaction);
		} catch (error) {
			unwritable(record, error as Error);
			return;
		}
		const bytes = Buffer.byteLength(json, 'utf8');
		if (!writer.isEmpty() && !writer.fitsOne(bytes)) yield writer.take();
		if (writer.fitsOne(bytes)) writer.writeOne(record, json, bytes);
		else yield { records: [record], bytes: Buffer.from(`[${json}]`, 'utf8') };
	}

	let chunkLength = 8;
	for (let start = 0; start < records.length; ) {
		const chunk = records.slice(start, start + chunkLength);
		start += chunk.length;
		let json: string | undefined;
		try {
			json = JSON.stringify(chunk.map((record) => record.transaction));
		} catch {
			json = undefined;
		}
		if (json !== undefined) chunkLength = Math.max(1, Math.floor((CHUNK_CHARS * chunk.length) / Math.max(1, json.length)));
		if (json !== undefined && writer.fitsChunk(json)) writer.writeChunk(chunk, json);
		else for (const record of chunk) yield* packOne(record);
	}
	if (!writer.isEmpty()) yield writer.take();
}

/** Writes array text into one reused buffer, grown as the bodies need. */
class BodyWriter {
	private buffer: Buffer | undefined;

	private records: SendableRecord[] = [];

	/** Where the body's closing bracket is; -1 while it is empty. */
	private closeAt = -1;

	constructor(private readonly limit: () => number) {}

	isEmpty(): boolean {
		return this.closeAt < 0;
	}

	/** Whether a chunk's array text fits whole. A UTF-16 unit is at most 3 bytes of UTF-8, so most chunks need no counting. */
	fitsChunk(json: string): boolean {
		// The chunk's `[` goes where the body's `]` is (and becomes a comma); its `]` closes the body.
		const offset = Math.max(0, this.closeAt);
		return offset + 3 * json.length <= this.limit() || offset + Buffer.byteLength(json, 'utf8') <= this.limit();
	}

	writeChunk(chunk: readonly SendableRecord[], json: string): void {
		const offset = Math.max(0, this.closeAt);
		const mostBytes = offset + 3 * json.length;
		const buffer = this.reserve(mostBytes <= this.capacity() ? mostBytes : offset + Buffer.byteLength(json, 'utf8'));
		const written = buffer.write(json, offset, 'utf8');
		if (this.closeAt >= 0) buffer[offset] = COMMA;
		this.closeAt = offset + written - 1;
		for (const record of chunk) this.records.push(record);
	}

	/** Whether one transaction of `bytes` fits: `[` or `,` before it and `]` after. */
	fitsOne(bytes: number): boolean {
		return Math.max(0, this.closeAt) + bytes + 2 <= this.limit();
	}

	writeOne(record: SendableRecord, json: string, bytes: number): void {
		let offset = Math.max(0, this.closeAt);
		const buffer = this.reserve(offset + bytes + 2);
		buffer[offset++] = this.closeAt < 0 ? OPEN_BRACKET : COMMA;
		offset += buffer.write(json, offset, 'utf8');
		buffer[offset] = CLOSE_BRACKET;
		this.closeAt = offset;
		this.records.push(record);
	}

	/** The body written so far; the buffer is written over once more is packed. */
	take(): Body {
		const body = { records: this.records, bytes: this.reserve(this.closeAt + 1).subarray(0, this.closeAt + 1) };
		this.records = [];
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
		const grown = Buffer.allocUnsafe(Math.max(bytes, Math.min(this.limit(), 2 * this.capacity())));
		this.buffer?.copy(grown, 0, 0, this.closeAt + 1);
		return (this.buffer = grown);
	}
}
