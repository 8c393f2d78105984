import { sendInBatches } from '../../nodes/MailingPlatform/actions/transaction/batching';
import { BodyPacker } from '../../nodes/MailingPlatform/actions/transaction/packing';
import type { PostTransactions, RequestResult } from '../../nodes/MailingPlatform/actions/transaction/request';

/** Ten transactions of 101 bytes each, for items 10 to 19, packed for `maxBytes`: a body of n of them has 102 n + 1 bytes. */
function transactions(maxBytes: number) {
	const packer = new BodyPacker(maxBytes, (itemIndex) => {
		throw new Error(`item ${itemIndex} was refused`);
	});
	for (let index = 0; index < 10; index++) packer.add(10 + index, { id: index, padding: 'x'.repeat(80) });
	return packer.finish();
}

/** A service that refuses bodies above `limit` bytes with 413 and queues everything else, recording what it saw. */
function service(limit: number, fail?: (count: number, call: number) => RequestResult | undefined) {
	const bodies: Array<Array<{ id: number }>> = [];
	const post: PostTransactions = async (body, count) => {
		const failure = fail?.(count, bodies.length);
		bodies.push(JSON.parse(body.toString('utf8')) as Array<{ id: number }>);
		if (failure !== undefined) return failure;
		if (body.length > limit) return { kind: 'tooLarge' };
		return { kind: 'reported', entries: Array.from({ length: count }, () => ({ queued: true, contact: {} })) };
	};
	return { post, ids: () => bodies.map((body) => body.map((transaction) => transaction.id)) };
}

describe('sending transactions in batches', () => {
	it('halves a batch refused with 413 and packs the rest smaller, each transaction reported once', async () => {
		const { post, ids } = service(450);
		const outcomes = await sendInBatches(transactions(1_000), 1_000, post, true);

		// 9 fit in 1,000 bytes (919); the 413 halves them and lowers the limit for the rest.
		expect(ids()).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3, 4], [0, 1, 2], [3, 4], [5, 6, 7, 8], [9]]);
		expect(outcomes.map((outcome) => [outcome.kind, outcome.start, outcome.end])).toEqual([
			['reported', 0, 3],
			['reported', 3, 5],
			['reported', 5, 9],
			['reported', 9, 10],
		]);
	});

	it('fails a single transaction refused as too large and goes on, or stops there when asked', async () => {
		const tooLarge = (continueAfter: boolean) => sendInBatches(transactions(250), 250, service(100).post, !continueAfter);

		const going = await tooLarge(true);
		expect(going.filter((outcome) => outcome.kind === 'failed')).toHaveLength(10);
		const stopped = await tooLarge(false);
		expect(stopped).toEqual([
			{
				kind: 'failed',
				start: 0,
				end: 1,
				queuedBefore: 0,
				failure: expect.objectContaining({ message: expect.stringContaining('too large (413), even sent alone (103 bytes)'), httpCode: '413' }),
			},
		]);
	});

	it('counts the transactions queued before a failed request and sends nothing after it when stopping', async () => {
		const failure: RequestResult = { kind: 'failed', failure: { message: 'The outcome is unknown' } };
		const { post, ids } = service(10_000, (_count, call) => (call === 1 ? failure : undefined));
		const outcomes = await sendInBatches(transactions(500), 500, post, true);

		expect(ids()).toEqual([[0, 1, 2, 3], [4, 5, 6, 7]]);
		expect(outcomes[1]).toEqual({ kind: 'failed', start: 4, end: 8, queuedBefore: 4, failure: failure.failure });
	});
});
