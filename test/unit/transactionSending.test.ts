import type { INode } from 'n8n-workflow';

import type { SendableRecord } from '../../nodes/MailingPlatform/actions/transaction/outcomes';
import type { PostTransactions } from '../../nodes/MailingPlatform/actions/transaction/sender';
import { Sender } from '../../nodes/MailingPlatform/actions/transaction/sender';
import { ServiceError } from '../../nodes/MailingPlatform/transport/errors';

const node: INode = { id: 'node', name: 'Mailing Platform', type: 'mailingPlatform', typeVersion: 1, position: [0, 0], parameters: {} };

/** Ten transactions of 101 bytes each, for items 10 to 19: a body of n of them has 102 n + 1 bytes. */
const records = (): SendableRecord[] => Array.from({ length: 10 }, (_, index) => ({ itemIndex: 10 + index, transaction: { id: index, padding: 'x'.repeat(80) } }));

/** A service that refuses bodies above `limit` bytes with 413 and queues everything else, recording what it saw. */
function service(limit: number, fail?: (call: number) => ServiceError | undefined) {
	const received: number[][] = [];
	const post: PostTransactions = async (body, count) => {
		received.push((JSON.parse(body.toString('utf8')) as Array<{ id: number }>).map((transaction) => transaction.id));
		const failure = fail?.(received.length - 1);
		if (failure !== undefined) throw failure;
		if (body.length > limit) return 'tooLarge';
		return Array.from({ length: count }, () => ({ queued: true, contact: {} }));
	};
	return { post, received };
}

const outcomes = (sent: SendableRecord[]) => sent.map((record) => record.outcome?.kind ?? 'unsent');

describe('sending records in packed bodies', () => {
	it('re-packs a body refused with 413 at half its size, and every later body at that limit; each transaction is reported once', async () => {
		const { post, received } = service(450);
		const sent = records();
		await new Sender(post, 1_000, true).send(sent);

		// 9 fit in 1,000 bytes (919 bytes); the 413 lowers the limit to 459: four per body (409 bytes).
		expect(received).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3], [4, 5, 6, 7], [8], [9]]);
		expect(outcomes(sent)).toEqual(sent.map(() => 'reported'));
	});

	it('sends one transaction alone and fails it with its request when the service refuses even that', async () => {
		const tooLarge = new ServiceError(node, { message: 'too large even alone' });
		const { post, received } = service(10_000, (call) => (call === 1 ? tooLarge : undefined));
		const sent = records().slice(0, 3);
		await new Sender(post, 250, false).send(sent);

		expect(received).toEqual([[0, 1], [2]]);
		expect(sent[2].outcome).toEqual({ kind: 'failed', failure: { error: tooLarge, outcomeUnknown: false, itemIndexes: [12], queuedBefore: 2 } });
	});

	it('refuses a transaction above Max Request Bytes without sending it, saying what earlier requests queued', async () => {
		const { post, received } = service(10_000);
		const sent: SendableRecord[] = [...records().slice(0, 2), { itemIndex: 12, transaction: { id: 2, padding: 'x'.repeat(400) } }];
		await new Sender(post, 300, false).send(sent);

		expect(received).toEqual([[0, 1]]);
		expect(sent[2].outcome).toEqual({ kind: 'refused', problem: expect.objectContaining({ message: 'The transaction alone is 421 bytes as JSON, more than one request may carry (300 bytes)' }) });
		expect((sent[2].outcome as { problem: { hint: string } }).problem.hint).toBe('Make its content or attachments smaller. 2 items of earlier requests were already queued.');
	});

	it('fails the items of a failed request, keeping the transport’s word on an unknown outcome, and sends nothing after it when stopping', async () => {
		const unknown = Object.assign(new ServiceError(node, { message: 'The outcome is unknown' }), { outcomeUnknown: true });
		const { post, received } = service(10_000, (call) => (call === 1 ? unknown : undefined));
		const sent = records();
		await new Sender(post, 500, true).send(sent);

		expect(received).toEqual([[0, 1, 2, 3], [4, 5, 6, 7]]);
		expect(outcomes(sent)).toEqual([...Array(4).fill('reported'), ...Array(4).fill('failed'), 'unsent', 'unsent']);
		expect(sent[4].outcome).toEqual({ kind: 'failed', failure: { error: unknown, outcomeUnknown: true, itemIndexes: [14, 15, 16, 17], queuedBefore: 4 } });
	});

	it('sends nothing in a dry run and shows each record its request', async () => {
		const sent = records();
		await new Sender(undefined, 500, true).send(sent);

		expect(sent.map((record) => record.outcome)).toEqual([
			...Array(4).fill({ kind: 'dryRun', request: { number: 1, bytes: 409, transactions: 4 } }),
			...Array(4).fill({ kind: 'dryRun', request: { number: 2, bytes: 409, transactions: 4 } }),
			...Array(2).fill({ kind: 'dryRun', request: { number: 3, bytes: 205, transactions: 2 } }),
		]);
	});
});
