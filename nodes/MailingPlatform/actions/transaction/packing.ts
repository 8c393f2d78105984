/**
 * How transactions become request bodies: JSON arrays packed in input order, the fewest within a
 * byte limit. The one packer of Transaction › Create, for the first packing and for re-packing a
 * body the service refused as too large. Pure: no n8n or HTTP here.
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

export interface Packed {
	bodies: Body[];
	/** Transactions JSON cannot express (a BigInt, a cycle): left out of every body. */
	unserializable: Array<{ itemIndex: number; error: Error }>;
}

/**
 * Transactions are serialized a chunk at a time, one `JSON.stringify` per chunk, and the text is
 * written straight into the body. A chunk stays below V8's large-object size (128 KiB), so its text
 * dies young: chunks of 140 KB left every chunk in the old generation until a full collection.
 */
const CHUNK_CHARS = 64 * 1024;

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

/**
 * The bodies for `transactions`, each within `maxBytes` unless one transaction alone is larger:
 * that one gets a body of its own, for the caller to refuse or to try. Greedy in order, which gives
 * the fewest requests for an order-preserving split.
 */
export function packBodies(transactions: readonly PreparedTransaction[], maxBytes: number): Packed {
	const packer = new Packer(maxBytes);
	let chunkLength = 8;
	for (let start = 0; start < transactions.length; ) {
		const chunk = transactions.slice(start, start + chunkLength);
		start += chunk.length;
		let json: string;
		try {
			json = JSON.stringify(chunk.map((entry) => entry.transaction));
		} catch {
			for (const entry of chunk) packer.addOne(entry);
			continue;
		}
		chunkLength = Math.max(1, Math.floor((CHUNK_CHARS * chunk.length) / Math.max(1, json.length)));
		if (!packer.addChunk(chunk, json)) for (const entry of chunk) packer.addOne(entry);
	}
	return packer.finish();
}

/** Writes array text into one body buffer after another. */
class Packer {
	private readonly packed: Packed = { bodies: [], unserializable: [] };

	private body: Buffer | undefined;

	private itemIndexes: number[] = [];

	/** Where the current body's closing bracket is; -1 while it is empty. */
	private closeAt = -1;

	constructor(private readonly maxBytes: number) {}

	/** Appends a chunk's array text whole if it fits; false if the body must end inside it. */
	addChunk(chunk: readonly PreparedTransaction[], json: string): boolean {
		// The chunk's `[` goes where the body's `]` is (and becomes a comma); its `]` closes the body.
		const offset = Math.max(0, this.closeAt);
		// A UTF-16 unit is at most 3 bytes of UTF-8, so most chunks fit without counting their bytes.
		if (offset + 3 * json.length > this.maxBytes && offset + Buffer.byteLength(json, 'utf8') > this.maxBytes) return false;
		const body = (this.body ??= Buffer.allocUnsafe(this.maxBytes));
		const written = body.write(json, offset, 'utf8');
		if (this.closeAt >= 0) body[offset] = COMMA;
		this.closeAt = offset + written - 1;
		for (const entry of chunk) this.itemIndexes.push(entry.itemIndex);
		return true;
	}

	/** Appends one transaction, starting a new body when it does not fit the current one. */
	addOne(entry: PreparedTransaction): void {
		let json: string;
		try {
			json = JSON.stringify(entry.transaction);
		} catch (error) {
			this.packed.unserializable.push({ itemIndex: entry.itemIndex, error: error as Error });
			return;
		}
		const bytes = Buffer.byteLength(json, 'utf8');
		if (this.closeAt >= 0 && this.closeAt + 2 + bytes > this.maxBytes) this.closeBody();
		if (bytes + 2 > this.maxBytes) {
			this.packed.bodies.push({ itemIndexes: [entry.itemIndex], bytes: Buffer.from(`[${json}]`, 'utf8') });
			return;
		}
		const body = (this.body ??= Buffer.allocUnsafe(this.maxBytes));
		let offset = Math.max(0, this.closeAt);
		body[offset++] = this.closeAt < 0 ? OPEN_BRACKET : COMMA;
		offset += body.write(json, offset, 'utf8');
		body[offset] = CLOSE_BRACKET;
		this.closeAt = offset;
		this.itemIndexes.push(entry.itemIndex);
	}

	finish(): Packed {
		this.closeBody();
		return this.packed;
	}

	private closeBody(): void {
		if (this.body === undefined || this.closeAt < 0) return;
		const length = this.closeAt + 1;
		// A body much smaller than the limit gets a buffer of its own size, not a whole one.
		const bytes = length < this.maxBytes / 2 ? Buffer.from(this.body.subarray(0, length)) : this.body.subarray(0, length);
		this.packed.bodies.push({ itemIndexes: this.itemIndexes, bytes });
		this.body = undefined;
		this.itemIndexes = [];
		this.closeAt = -1;
	}
}

/** The transactions of a body as the service receives them, paired with their items again. */
export function unpackBody(body: Body): PreparedTransaction[] {
	const transactions = JSON.parse(body.bytes.toString('utf8')) as Array<Record<string, unknown>>;
	return transactions.map((transaction, index) => ({ itemIndex: body.itemIndexes[index], transaction }));
}
