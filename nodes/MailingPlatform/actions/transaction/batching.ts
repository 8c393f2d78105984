import { thousands } from '../../helpers/numbers';
import type { PackedBody, PreparedTransaction, SerializedTransaction } from './packing';
import { arrayBody, nextBatchEnd, release, serialize } from './packing';
import type { ReportEntry } from './report';
import type { PostTransactions, RequestFailure } from './request';

/** What became of the transactions [start, end) sent in one request. */
export type BatchOutcome =
	| { kind: 'reported'; start: number; end: number; entries: ReportEntry[] }
	| { kind: 'failed'; start: number; end: number; failure: RequestFailure; queuedBefore: number };

/**
 * Sends the transactions in order, in the bodies packed for `maxBytes`. A 413 halves that
 * batch and lowers the limit for the rest, down to single transactions, packed again from
 * each transaction's own JSON. Each transaction is sent at most once. With `stopAtFailure`
 * nothing more is sent after a failed request.
 */
export async function sendInBatches(
	{ transactions, bodies }: { transactions: readonly PreparedTransaction[]; bodies: PackedBody[] },
	maxBytes: number,
	post: PostTransactions,
	stopAtFailure: boolean,
): Promise<BatchOutcome[]> {
	const outcomes: BatchOutcome[] = [];
	let limit = maxBytes;
	let queued = 0;
	let stopped = false;
	// Each transaction's own JSON, made only once a 413 asks for smaller bodies.
	let serialized: SerializedTransaction[] | undefined;
	const each = () => (serialized ??= transactions.map(({ itemIndex, transaction }) => serialize(itemIndex, transaction)));

	const fail = (start: number, end: number, failure: RequestFailure) => {
		outcomes.push({ kind: 'failed', start, end, failure, queuedBefore: queued });
		stopped = stopAtFailure;
	};

	const send = async (start: number, end: number, packed?: Buffer): Promise<void> => {
		if (stopped) return;
		const body = packed ?? arrayBody(each(), start, end);
		const result = await post(body, end - start, transactions[start].itemIndex);
		if (result.kind === 'failed') return fail(start, end, result.failure);
		if (result.kind === 'reported') {
			if (serialized !== undefined) release(serialized, start, end);
			for (const entry of result.entries) if (entry.queued) queued++;
			outcomes.push({ kind: 'reported', start, end, entries: result.entries });
			return;
		}
		const bytes = body.length;
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

	let start = 0;
	// Shifted off, so that each body can be collected once its request is answered.
	for (let packed = bodies.shift(); packed !== undefined && limit === maxBytes && !stopped; packed = bodies.shift()) {
		await send(packed.start, packed.end, packed.body);
		start = packed.end;
	}
	while (start < transactions.length && !stopped) {
		const end = nextBatchEnd(each(), start, limit);
		await send(start, end);
		start = end;
	}
	return outcomes;
}
