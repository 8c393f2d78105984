import type { PreparedTransaction } from './packing';
import { arrayBody, arrayBodyBytes, nextBatchEnd, release } from './packing';
import type { ReportEntry } from './report';
import type { PostTransactions, RequestFailure } from './request';

/** What became of the transactions [start, end) sent in one request. */
export type BatchOutcome =
	| { kind: 'reported'; start: number; end: number; entries: ReportEntry[] }
	| { kind: 'failed'; start: number; end: number; failure: RequestFailure; queuedBefore: number };

const thousands = (value: number) => value.toLocaleString('en-US');

/**
 * Sends the transactions in order, in the fewest bodies within `maxBytes`. A 413 halves that
 * batch and lowers the limit for the rest, down to single transactions. Each transaction is
 * sent at most once. With `stopAtFailure` nothing more is sent after a failed request.
 */
export async function sendInBatches(
	transactions: readonly PreparedTransaction[],
	maxBytes: number,
	post: PostTransactions,
	stopAtFailure: boolean,
): Promise<BatchOutcome[]> {
	const outcomes: BatchOutcome[] = [];
	let limit = maxBytes;
	let queued = 0;
	let stopped = false;

	const fail = (start: number, end: number, failure: RequestFailure) => {
		outcomes.push({ kind: 'failed', start, end, failure, queuedBefore: queued });
		stopped = stopAtFailure;
	};

	const send = async (start: number, end: number): Promise<void> => {
		if (stopped) return;
		const result = await post(arrayBody(transactions, start, end), end - start, transactions[start].itemIndex);
		if (result.kind === 'failed') return fail(start, end, result.failure);
		if (result.kind === 'reported') {
			release(transactions, start, end);
			for (const entry of result.entries) if (entry.queued) queued++;
			outcomes.push({ kind: 'reported', start, end, entries: result.entries });
			return;
		}
		const bytes = arrayBodyBytes(transactions, start, end);
		// The service's limit is below this size: later requests are packed smaller from now on.
		limit = Math.min(limit, Math.max(1024, Math.floor(bytes / 2)));
		if (end - start === 1) {
			return fail(start, end, {
				message: `The service refused the transaction as too large (413), even sent alone (${thousands(bytes)} bytes)`,
				description: 'Its limit is lower than documented. Make the content or attachments of this item smaller.',
				httpCode: '413',
			});
		}
		const middle = start + Math.ceil((end - start) / 2);
		await send(start, middle);
		await send(middle, end);
	};

	for (let start = 0; start < transactions.length && !stopped; ) {
		const end = nextBatchEnd(transactions, start, limit);
		await send(start, end);
		start = end;
	}
	return outcomes;
}
