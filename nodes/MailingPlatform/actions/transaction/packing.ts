/**
 * How transactions become request bodies: each serialized once, packed in order into the
 * fewest bodies within a byte limit. Pure: no n8n or HTTP here.
 */

export const SPEC_MAX_REQUEST_BYTES = 9_000_000;

/** One transaction ready to send: its input item, its JSON text and that text's UTF-8 size. */
export interface PreparedTransaction {
	readonly itemIndex: number;
	/** Emptied by `release` once the request carrying it has been answered. */
	json: string;
	readonly bytes: number;
}

export function serialize(itemIndex: number, transaction: Record<string, unknown>): PreparedTransaction {
	const json = JSON.stringify(transaction);
	return { itemIndex, json, bytes: Buffer.byteLength(json, 'utf8') };
}

/** Bytes of the JSON array body holding transactions [start, end): brackets and commas included. */
export function arrayBodyBytes(transactions: readonly PreparedTransaction[], start: number, end: number): number {
	let total = 2 + Math.max(0, end - start - 1);
	for (let index = start; index < end; index++) total += transactions[index].bytes;
	return total;
}

/**
 * The end (exclusive) of the largest run of transactions from `start` whose array body stays
 * within `maxBytes`. Always takes at least one, so the caller must refuse transactions that
 * cannot fit alone. Greedy in order gives the fewest requests for an order-preserving split.
 */
export function nextBatchEnd(transactions: readonly PreparedTransaction[], start: number, maxBytes: number): number {
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
export function arrayBody(transactions: readonly PreparedTransaction[], start: number, end: number): Buffer {
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
export function release(transactions: readonly PreparedTransaction[], start: number, end: number): void {
	for (let index = start; index < end; index++) transactions[index].json = '';
}
