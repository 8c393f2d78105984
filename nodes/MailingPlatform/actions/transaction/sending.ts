import { thousands } from '../../helpers/numbers';
import type { Body } from './packing';
import { packBodies, unpackBody } from './packing';
import type { ReportEntry } from './report';
import type { PostTransactions, RequestFailure } from './request';

/** What became of the transactions of one request, in body order. */
export type RequestOutcome =
	| { kind: 'reported'; itemIndexes: readonly number[]; entries: ReportEntry[] }
	| { kind: 'failed'; itemIndexes: readonly number[]; failure: RequestFailure; queuedBefore: number };

/**
 * Sends the bodies in order, each transaction at most once. The limit starts at `maxBytes`; a 413
 * says the account's limit is lower, so it drops to half the refused body, and that body and every
 * later one above the limit are re-packed by the same packer before they go. With `stopAtFailure`
 * nothing more is sent after a failed request.
 */
export async function sendBodies(
	bodies: Body[],
	maxBytes: number,
	post: PostTransactions,
	stopAtFailure: boolean,
): Promise<RequestOutcome[]> {
	const outcomes: RequestOutcome[] = [];
	let limit = maxBytes;
	let queued = 0;
	let stopped = false;

	const send = async (body: Body): Promise<void> => {
		if (stopped) return;
		const { itemIndexes, bytes } = body;
		if (bytes.length > limit && itemIndexes.length > 1) {
			// A 413 does not queue anything, so the transactions may go again in smaller bodies.
			for (const smaller of packBodies(unpackBody(body), limit).bodies) await send(smaller);
			return;
		}
		const result = await post(bytes, itemIndexes.length, itemIndexes[0]);
		if (result.kind === 'tooLarge' && itemIndexes.length > 1) {
			limit = Math.min(limit, Math.floor(bytes.length / 2));
			return await send(body);
		}
		if (result.kind === 'reported') {
			for (const entry of result.entries) if (entry.queued) queued++;
			outcomes.push({ kind: 'reported', itemIndexes, entries: result.entries });
			return;
		}
		const failure: RequestFailure =
			result.kind === 'failed'
				? result.failure
				: {
						message: `The service refused the transaction as too large (413), even sent alone (${thousands(bytes.length)} bytes)`,
						description: 'Its limit is lower than documented. Make the content or attachments of this item smaller.',
						httpCode: '413',
					};
		outcomes.push({ kind: 'failed', itemIndexes, failure, queuedBefore: queued });
		stopped = stopAtFailure;
	};

	// Shifted off, so that each body can be collected once its request is answered.
	for (let body = bodies.shift(); body !== undefined; body = bodies.shift()) await send(body);
	return outcomes;
}
