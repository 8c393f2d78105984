import type { IExecuteFunctions, INode } from 'n8n-workflow';

import type { PostBody } from '../../nodes/MailingPlatform/actions/transaction/accountSender';
import { AccountSender } from '../../nodes/MailingPlatform/actions/transaction/accountSender';
import type { Outcome } from '../../nodes/MailingPlatform/actions/transaction/results';
import type { JobSettings } from '../../nodes/MailingPlatform/actions/transaction/sendJob';
import { SendJob } from '../../nodes/MailingPlatform/actions/transaction/sendJob';
import { packForDryRun } from '../../nodes/MailingPlatform/actions/transaction/sending';
import { AccountGate } from '../../nodes/MailingPlatform/transport/accountGate';
import { ServiceError } from '../../nodes/MailingPlatform/transport/errors';

const node: INode = { id: 'node', name: 'Mailing Platform', type: 'mailingPlatform', typeVersion: 1, position: [0, 0], parameters: {} };
const context = { getNode: () => node } as unknown as IExecuteFunctions;

/** Items 0 to 9 have no transaction; items 10 to 19 have one of 101 bytes each: a body of n of them has 102 n + 1 bytes. */
const transactions = Array.from({ length: 20 }, (_, index) => (index < 10 ? undefined : { id: index - 10, padding: 'x'.repeat(80) }));
const order = Array.from({ length: 10 }, (_, index) => 10 + index);

function serviceError(details: { message: string; httpCode?: string }, flags: Partial<Pick<ServiceError, 'outcomeUnknown' | 'notProcessed'>> = {}) {
	return Object.assign(new ServiceError(node, { message: details.message, httpCode: details.httpCode ?? '' }), { httpCode: details.httpCode ?? null }, flags);
}

/** A service that refuses bodies above `limit` bytes with 413 and queues everything else, recording what it saw. */
function service(limit: number, fail?: (call: number) => ServiceError | undefined) {
	const received: number[][] = [];
	const post: PostBody = async (_context, { body, contacts }) => {
		received.push((JSON.parse(body.toString('utf8')) as Array<{ id: number }>).map((transaction) => transaction.id));
		const failure = fail?.(received.length - 1);
		if (failure !== undefined) throw failure;
		if (body.length > limit) throw serviceError({ message: 'Request entity too large', httpCode: '413' }, { notProcessed: true });
		return contacts.map(() => ({ queued: true, contact: {} }));
	};
	return { post, received };
}

/** One execution's transactions sent through a sender of their own, as the node's sender sends them. */
async function sendTransactions(post: PostBody, all: ReadonlyArray<unknown>, items: readonly number[], settings: Partial<JobSettings> & { maxRequestBytes: number; stopAtFailure: boolean }): Promise<Outcome[]> {
	const sender = new AccountSender(new AccountGate(), post, async () => {
		throw new Error('no probe was expected: nothing here is refused');
	});
	const job = await new Promise<SendJob>((done) => sender.submit(new SendJob(context, all, items, { ignoreInvalid: true, maxWaitSeconds: 60, ...settings }, done), undefined));
	return job.outcomes;
}

/** Each item's outcome kind, in input order of the items sent; `unsent` where no outcome covers it. */
const kinds = (outcomes: Outcome[]) => order.map((itemIndex) => outcomes.find((outcome) => outcome.itemIndexes.includes(itemIndex))?.kind ?? 'unsent');

describe('sending transactions in packed bodies', () => {
	it('re-packs a body refused with 413 at half its size, and every later body at that limit; each transaction is reported once', async () => {
		const { post, received } = service(450);
		const outcomes = await sendTransactions(post, transactions, order, { maxRequestBytes: 1_000, stopAtFailure: true });

		// 9 fit in 1,000 bytes (919 bytes); the 413 lowers the limit to 459: four per body (409 bytes).
		expect(received).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8], [0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]);
		expect(outcomes.map((outcome) => outcome.itemIndexes)).toEqual([[10, 11, 12, 13], [14, 15, 16, 17], [18, 19]]);
		expect(kinds(outcomes)).toEqual(order.map(() => 'reported'));
	});

	it('sends one transaction alone and fails it with its request when the service refuses even that', async () => {
		const tooLarge = serviceError({ message: 'too large even alone', httpCode: '413' }, { notProcessed: true });
		const { post, received } = service(10_000, (call) => (call === 1 ? tooLarge : undefined));
		const outcomes = await sendTransactions(post, transactions, order.slice(0, 3), { maxRequestBytes: 250, stopAtFailure: false });

		expect(received).toEqual([[0, 1], [2]]);
		expect(outcomes[1]).toEqual({ kind: 'failed', itemIndexes: [12], error: tooLarge });
	});

	it('refuses a transaction above Max Request Bytes without sending it, saying what earlier requests queued', async () => {
		const { post, received } = service(10_000);
		const withLarge = [...transactions.slice(0, 12), { id: 2, padding: 'x'.repeat(400) }];
		const outcomes = await sendTransactions(post, withLarge, [10, 11, 12], { maxRequestBytes: 300, stopAtFailure: false });

		expect(received).toEqual([[0, 1]]);
		expect(outcomes[1]).toEqual({ kind: 'refused', itemIndexes: [12], problem: expect.objectContaining({ message: 'The transaction alone is 421 bytes as JSON, more than one request may carry (300 bytes)' }) });
		expect((outcomes[1] as { problem: { hint: string } }).problem.hint).toBe('Make its content or attachments smaller. 2 items of earlier requests were already queued.');
	});

	it('fails the items of a failed request, keeping the transport’s word on an unknown outcome, and sends nothing after it when stopping', async () => {
		const unknown = serviceError({ message: 'The outcome is unknown' }, { outcomeUnknown: true });
		const { post, received } = service(10_000, (call) => (call === 1 ? unknown : undefined));
		const outcomes = await sendTransactions(post, transactions, order, { maxRequestBytes: 500, stopAtFailure: true });

		expect(received).toEqual([[0, 1, 2, 3], [4, 5, 6, 7]]);
		expect(kinds(outcomes)).toEqual([...Array(4).fill('reported'), ...Array(4).fill('failed'), 'unsent', 'unsent']);
		expect(outcomes[1]).toEqual({ kind: 'failed', itemIndexes: [14, 15, 16, 17], error: unknown });
	});

	it('goes on after a failed request with continue-on-fail', async () => {
		const refused = serviceError({ message: 'Invalid transaction', httpCode: '400' });
		const { post, received } = service(10_000, (call) => (call === 0 ? refused : undefined));
		const outcomes = await sendTransactions(post, transactions, order, { maxRequestBytes: 500, stopAtFailure: false });

		expect(received).toHaveLength(3);
		expect(kinds(outcomes)).toEqual([...Array(4).fill('failed'), ...Array(6).fill('reported')]);
	});

	it('sends nothing in a dry run and shows each item its request', () => {
		const outcomes = packForDryRun(transactions, order, { maxRequestBytes: 500, stopAtFailure: true });

		expect(outcomes).toEqual([
			{ kind: 'packed', itemIndexes: [10, 11, 12, 13], request: { number: 1, bytes: 409, transactions: 4 } },
			{ kind: 'packed', itemIndexes: [14, 15, 16, 17], request: { number: 2, bytes: 409, transactions: 4 } },
			{ kind: 'packed', itemIndexes: [18, 19], request: { number: 3, bytes: 205, transactions: 2 } },
		]);
	});
});
