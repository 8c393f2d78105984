import type { IExecuteFunctions, INode } from 'n8n-workflow';

import type { PostBody } from '../../nodes/MailingPlatform/actions/transaction/accountSender';
import { AccountSender } from '../../nodes/MailingPlatform/actions/transaction/accountSender';
import type { QueueReport } from '../../nodes/MailingPlatform/actions/transaction/results';
import type { JobSettings } from '../../nodes/MailingPlatform/actions/transaction/sendJob';
import { SendJob } from '../../nodes/MailingPlatform/actions/transaction/sendJob';
import { AccountGate } from '../../nodes/MailingPlatform/transport/accountGate';
import { ServiceError } from '../../nodes/MailingPlatform/transport/errors';

/**
 * The account's sender as executions running at the same time meet it: one order each, as a
 * shop's webhook delivers them. The service here answers when the test lets it.
 */
const node: INode = { id: 'node', name: 'Mailing Platform', type: 'mailingPlatform', typeVersion: 1, position: [0, 0], parameters: {} };
const context = { getNode: () => node } as unknown as IExecuteFunctions;

function refusal(status: string) {
	return Object.assign(new ServiceError(node, { message: `Refused ${status}`, httpCode: status }), { httpCode: status, notProcessed: true });
}

/** A service whose answers wait until `answer()`; each report names its order. */
function service(gate: AccountGate, refuse: (call: number) => ServiceError | undefined = () => undefined) {
	const requests: string[][] = [];
	const started: number[] = [];
	let release: () => void = () => {};
	let held = Promise.resolve();
	// As the transport does: every request takes its turn at the account's gate.
	const post: PostBody = async (_context, body) => {
		await gate.turn();
		const orders = (JSON.parse(body.toString('utf8')) as Array<{ order: string }>).map((transaction) => transaction.order);
		requests.push(orders);
		started.push(performance.now());
		await held;
		const failure = refuse(requests.length - 1);
		if (failure !== undefined) {
			if (failure.httpCode === '429') gate.pause(50, 'the service answered 429 (too many requests)');
			throw failure;
		}
		return orders.map((order): QueueReport => ({ queued: true, contact: null, order }));
	};
	return {
		post,
		requests,
		started,
		/** Holds every answer until the returned function is called. */
		hold: () => {
			held = new Promise((resolve) => (release = resolve));
			return () => release();
		},
	};
}

function execution(sender: AccountSender, order: string, settings: Partial<JobSettings> = {}) {
	let stop = () => {};
	const done = new Promise<SendJob>((resolve) => {
		const job = new SendJob(context, [{ order }], [0], { maxRequestBytes: 10_000, stopAtFailure: true, ignoreInvalid: true, maxWaitSeconds: 60, ...settings }, resolve);
		stop = () => sender.withdraw(job);
		sender.submit(job);
	});
	return { done, stop };
}

const reportOf = async (run: { done: Promise<SendJob> }) => {
	const { outcomes } = await run.done;
	return outcomes.map((outcome) => (outcome.kind === 'reported' ? outcome.reports[0].order : `${outcome.kind}: ${'error' in outcome ? outcome.error.message : ''}`));
};

describe('the account’s sender, shared by executions running at the same time', () => {
	it('sends a lone order at once, and the orders that arrive while it is under way together in the next request, each with its own report', async () => {
		const gate = new AccountGate();
		const { post, requests, hold } = service(gate);
		const sender = new AccountSender(gate, post);
		const answer = hold();
		const first = execution(sender, 'A-0');
		const later = ['A-1', 'A-2', 'A-3'].map((order) => execution(sender, order));
		answer();

		expect(await Promise.all([first, ...later].map(reportOf))).toEqual([['A-0'], ['A-1'], ['A-2'], ['A-3']]);
		expect(requests).toEqual([['A-0'], ['A-1', 'A-2', 'A-3']]);
	});

	it('pauses once after a 429 and sends the refused orders with those that arrived meanwhile in the next request', async () => {
		const gate = new AccountGate();
		const { post, requests, hold } = service(gate, (call) => (call === 0 ? refusal('429') : undefined));
		const sender = new AccountSender(gate, post);
		const answer = hold();
		const runs = ['A-0', 'A-1', 'A-2'].map((order) => execution(sender, order));
		answer();

		expect(await Promise.all(runs.map(reportOf))).toEqual([['A-0'], ['A-1'], ['A-2']]);
		expect(requests).toEqual([['A-0'], ['A-0', 'A-1', 'A-2']]);
		expect((await runs[0].done).note.reasons).toEqual(new Set(['the service answered 429 (too many requests)']));
	});

	it('fails an order as not sent once it has waited Max Wait Seconds, naming the reason and the refused requests', async () => {
		const gate = new AccountGate();
		const { post, requests } = service(gate, () => refusal('429'));
		const sender = new AccountSender(gate, post);

		const [outcome] = (await execution(sender, 'A-0', { maxWaitSeconds: 0.3 }).done).outcomes;
		expect(outcome).toMatchObject({ kind: 'failed', itemIndexes: [0] });
		const error = (outcome as { error: ServiceError }).error;
		expect(error.message).toBe("Not sent: it waited 0.3 s for the account's requests (Max Wait Seconds), because of the service answered 429 (too many requests)");
		expect(error.description).toBe(`The service did not get it, so running it again sends it once. Requests that carried it and were refused: ${requests.length}.`);
		expect(error.notProcessed).toBe(true);
	});

	it('withdraws a stopped execution’s order that has not left, and lets the request under way finish for the others', async () => {
		const gate = new AccountGate();
		const { post, requests, hold } = service(gate);
		const sender = new AccountSender(gate, post);
		const answer = hold();
		const first = execution(sender, 'A-0');
		const stopped = execution(sender, 'A-1');
		const last = execution(sender, 'A-2');
		first.stop();
		stopped.stop();
		expect(await reportOf(stopped)).toEqual(['failed: Not sent: the execution was stopped before this transaction left']);
		answer();

		expect(await reportOf(first)).toEqual(['A-0']);
		expect(await reportOf(last)).toEqual(['A-2']);
		expect(requests).toEqual([['A-0'], ['A-2']]);
	});

	it('never shares a request of an execution with Ignore Invalid Transactions off, whose one invalid transaction fails the whole request', async () => {
		const gate = new AccountGate();
		const { post, requests, hold } = service(gate);
		const sender = new AccountSender(gate, post);
		const answer = hold();
		const runs = [execution(sender, 'A-0'), execution(sender, 'A-1'), execution(sender, 'A-2', { ignoreInvalid: false }), execution(sender, 'A-3')];
		answer();
		await Promise.all(runs.map((run) => run.done));

		expect(requests).toEqual([['A-0'], ['A-1', 'A-3'], ['A-2']]);
	});

	it('paces the account’s requests to the credential’s Max Requests per Second', async () => {
		const gate = new AccountGate();
		gate.pace(20);
		const { post, started } = service(gate);
		const sender = new AccountSender(gate, post);
		for (const order of ['A-0', 'A-1', 'A-2']) await execution(sender, order, { ignoreInvalid: false }).done;

		const gaps = started.slice(1).map((at, index) => at - started[index]);
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(45);
	});
});
