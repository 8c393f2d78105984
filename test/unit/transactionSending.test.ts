import { packBodies } from '../../nodes/MailingPlatform/actions/transaction/packing';
import type { PostTransactions, RequestResult } from '../../nodes/MailingPlatform/actions/transaction/request';
import type { Body } from '../../nodes/MailingPlatform/actions/transaction/packing';
import { Sender } from '../../nodes/MailingPlatform/actions/transaction/sending';

/** Ten transactions of 101 bytes each, for items 10 to 19, packed for `maxBytes`: a body of n of them has 102 n + 1 bytes. */
function bodies(maxBytes: number) {
	const transactions = Array.from({ length: 10 }, (_, index) => ({ itemIndex: 10 + index, transaction: { id: index, padding: 'x'.repeat(80) } }));
	const packed: Body[] = [];
	// Copied, since the packer writes every body into the same buffer.
	for (const entry of packBodies(transactions, maxBytes)) if (entry.kind === 'body') packed.push({ ...entry.body, bytes: Buffer.from(entry.body.bytes) });
	return packed;
}

/** Every body through one Sender, in order, as Create sends them. */
async function sendBodies(packed: Body[], maxBytes: number, post: PostTransactions, stopAtFailure: boolean) {
	const sender = new Sender(maxBytes, post, stopAtFailure);
	const outcomes = [];
	for (const body of packed) outcomes.push(...(await sender.send(body)));
	return outcomes;
}

/** A service that refuses bodies above `limit` bytes with 413 and queues everything else, recording what it saw. */
function service(limit: number, fail?: (count: number, call: number) => RequestResult | undefined) {
	const received: Array<Array<{ id: number }>> = [];
	const post: PostTransactions = async (body, count) => {
		const failure = fail?.(count, received.length);
		received.push(JSON.parse(body.toString('utf8')) as Array<{ id: number }>);
		if (failure !== undefined) return failure;
		if (body.length > limit) return { kind: 'tooLarge' };
		return { kind: 'reported', entries: Array.from({ length: count }, () => ({ queued: true, contact: {} })) };
	};
	return { post, ids: () => received.map((body) => body.map((transaction) => transaction.id)) };
}

describe('sending packed bodies', () => {
	it('re-packs a body refused with 413 at half its size, and every later body above that, each transaction reported once', async () => {
		const { post, ids } = service(450);
		const outcomes = await sendBodies(bodies(1_000), 1_000, post, true);

		// 9 fit in 1,000 bytes (919 bytes); the 413 lowers the limit to 459: four per body (409 bytes).
		expect(ids()).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3], [4, 5, 6, 7], [8], [9]]);
		expect(outcomes.map((outcome) => [outcome.kind, outcome.itemIndexes])).toEqual([
			['reported', [10, 11, 12, 13]],
			['reported', [14, 15, 16, 17]],
			['reported', [18]],
			['reported', [19]],
		]);
	});

	it('fails a single transaction refused as too large and goes on, or stops there when asked', async () => {
		const tooLarge = (continueAfter: boolean) => sendBodies(bodies(250), 250, service(100).post, !continueAfter);

		const going = await tooLarge(true);
		expect(going.filter((outcome) => outcome.kind === 'failed')).toHaveLength(10);
		const stopped = await tooLarge(false);
		expect(stopped).toEqual([
			{
				kind: 'failed',
				itemIndexes: [10],
				queuedBefore: 0,
				failure: expect.objectContaining({ message: expect.stringContaining('too large (413), even sent alone (103 bytes)'), httpCode: '413' }),
			},
		]);
	});

	it('counts the transactions queued before a failed request and sends nothing after it when stopping', async () => {
		const failure: RequestResult = { kind: 'failed', failure: { message: 'The outcome is unknown' } };
		const { post, ids } = service(10_000, (_count, call) => (call === 1 ? failure : undefined));
		const outcomes = await sendBodies(bodies(500), 500, post, true);

		expect(ids()).toEqual([[0, 1, 2, 3], [4, 5, 6, 7]]);
		expect(outcomes[1]).toEqual({ kind: 'failed', itemIndexes: [14, 15, 16, 17], queuedBefore: 4, failure: failure.failure });
	});
});
