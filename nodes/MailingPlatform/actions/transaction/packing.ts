/** Request packing and report reading for POST transactions: pure, no n8n or HTTP here. */

export const SPEC_MAX_REQUEST_BYTES = 9_000_000;

/** Bytes of a JSON array body holding transactions of these sizes: brackets and commas included. */
export function arrayBodyBytes(sizes: readonly number[], start: number, end: number): number {
	let total = 2 + Math.max(0, end - start - 1);
	for (let index = start; index < end; index++) total += sizes[index];
	return total;
}

/**
 * The end (exclusive) of the largest run of transactions from `start` whose array body stays
 * within `maxBytes`. Always takes at least one, so the caller must refuse transactions that
 * cannot fit alone. Greedy in order gives the fewest requests for an order-preserving split.
 */
export function nextBatchEnd(sizes: readonly number[], start: number, maxBytes: number): number {
	let body = 2 + sizes[start];
	let end = start + 1;
	while (end < sizes.length && body + 1 + sizes[end] <= maxBytes) {
		body += 1 + sizes[end];
		end++;
	}
	return end;
}

const OPEN_BRACKET = 0x5b;
const COMMA = 0x2c;
const CLOSE_BRACKET = 0x5d;

/**
 * The array body exactly as sent: `[` + serialized transactions joined by `,` + `]`, encoded
 * straight into one buffer of the known size, with no joined string to build and encode again.
 */
export function arrayBody(serialized: readonly string[], sizes: readonly number[], start: number, end: number): Buffer {
	const body = Buffer.allocUnsafe(arrayBodyBytes(sizes, start, end));
	let offset = 0;
	body[offset++] = OPEN_BRACKET;
	for (let index = start; index < end; index++) {
		if (index > start) body[offset++] = COMMA;
		offset += body.write(serialized[index], offset, 'utf8');
	}
	body[offset] = CLOSE_BRACKET;
	return body;
}

export interface ReportEntry {
	queued: boolean;
	contact: unknown;
	message?: string;
}

export type ReadReport = { ok: true; entries: ReportEntry[] } | { ok: false; problem: string };

function readQueued(value: unknown): boolean | undefined {
	if (value === true || value === 'true') return true;
	if (value === false || value === 'false') return false;
	return undefined;
}

/**
 * The report of one request, entry i belonging to transaction i. The wrapper is `reports` or
 * `report` (the spec shows both) and `queued` a boolean or "true"/"false". A count that does
 * not match the transactions sent is refused: pairing them by guesswork could mark an
 * e-mail as sent that was not, or the other way round.
 */
export function readReport(body: string, expectedCount: number): ReadReport {
	let parsed: unknown;
	try {
		parsed = JSON.parse(body);
	} catch {
		return { ok: false, problem: 'the answer is not JSON' };
	}
	const wrapper = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {};
	const list = Array.isArray(wrapper.reports) ? wrapper.reports : Array.isArray(wrapper.report) ? wrapper.report : undefined;
	if (list === undefined) return { ok: false, problem: 'the answer has no "reports" or "report" list' };
	if (list.length !== expectedCount) {
		return {
			ok: false,
			problem: `the answer has ${list.length} report entries for ${expectedCount} transactions sent`,
		};
	}
	const entries: ReportEntry[] = [];
	for (let index = 0; index < list.length; index++) {
		const raw = list[index] as Record<string, unknown> | null;
		const queued = readQueued(raw?.queued);
		if (raw === null || typeof raw !== 'object' || queued === undefined) {
			return { ok: false, problem: `report entry ${index + 1} has no readable "queued" value` };
		}
		const entry: ReportEntry = { queued, contact: raw.contact ?? null };
		if (typeof raw.message === 'string') entry.message = raw.message;
		else if (!queued) entry.message = 'The service did not queue the transaction and gave no reason.';
		entries.push(entry);
	}
	return { ok: true, entries };
}
