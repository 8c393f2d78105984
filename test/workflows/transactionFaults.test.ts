import * as packing from '../../nodes/MailingPlatform/actions/transaction/packing';
import { PackingCursor } from '../../nodes/MailingPlatform/actions/transaction/packingCursor';
import { SendJob } from '../../nodes/MailingPlatform/actions/transaction/sendJob';
import { KeyClaims } from '../../nodes/MailingPlatform/actions/transaction/deduplication';
import { keyStoreIdle } from '../../nodes/MailingPlatform/helpers/keyStore';
import * as transport from '../../nodes/MailingPlatform/transport';
import type { ServiceDouble } from '../double/server';
import { useServiceDouble } from '../harness/double';
import { processedData } from '../harness/processedData';
import { jsonMode, order } from '../harness/transactions';
import type { NodeRunResult } from '../harness/workflow';
import { runNode } from '../harness/workflow';

/**
 * The promise Create keeps at every fault: each keyed order ends queued once; or not sent, its
 * key free in n8n's store and its message saying that a re-run sends it; or, only where its bytes
 * may have reached the service, outcome unknown, its key kept. Each row strikes one position (a
 * store call of a claim, a give-back or a settlement failing or undone by another process; a
 * stop; a fault of the sender's own code) in a keyed execution against the double and the model
 * of n8n's store; then the same order is delivered again with nothing failing, as a shop or a
 * user re-run does. The promise is read off the double's log, the store and the items.
 */
const keyed = (options: Record<string, unknown> = {}) => ({ ...jsonMode, options: { deduplicationKey: '={{ $json.content["order.id"] }}', maxWaitSeconds: 5, ...options } });

/** What becomes of an order; `othersKey`: its key was another process's, which stays, so a delivery again skips it. */
type Promised = 'queued' | 'notSent' | 'unknown' | 'othersKey';

interface Row {
	position: string;
	/** The promise kept for order A-0 (and A-1 where the row delivers two). */
	promised: Promised;
	/** Sets the fault up before the execution; `stop` stops it when it resolves. */
	strike(double: ServiceDouble): Promise<{ stop?: Promise<unknown> } | void> | { stop?: Promise<unknown> } | void;
	/** Orders delivered (A-0 by default). */
	orders?: number[];
	/** The promise of each further order. */
	others?: Promised[];
	options?: Record<string, unknown>;
}

/** The number the store's `count`th call from now will have. */
const call = (count: number) => processedData.calls.length + count;

/** Resolves once the store has been called `count` times. */
async function storeCalls(count: number): Promise<void> {
	while (processedData.calls.length < count) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** Resolves once the double has received `count` requests to transactions. */
async function requestsArrived(double: ServiceDouble, count: number): Promise<void> {
	while (double.requestsTo('transactions').length < count) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** Resolves once neither the store nor the double has been called for 600 ms: a stopped execution's work has ended. */
async function quiet(double: ServiceDouble): Promise<void> {
	for (let seen = -1; ; ) {
		const now = processedData.calls.length + double.requests.length;
		if (now === seen) return;
		seen = now;
		await new Promise((resolve) => setTimeout(resolve, 600));
	}
}

const rows: Row[] = [
	{ position: 'the claim’s recording fails once, and is asked again', promised: 'queued', strike: () => void processedData.planned.set(1, 'fail') },
	{
		position: 'the claim’s recording fails twice',
		promised: 'notSent',
		strike: () => {
			processedData.planned.set(1, 'fail');
			processedData.planned.set(2, 'fail');
		},
	},
	{ position: 'the claim’s recording is undone by another process', promised: 'queued', strike: () => void processedData.planned.set(1, 'undo') },
	{
		// A-0 was sent by an earlier execution, so the claim reads the marks; A-1's key was recorded and must go back.
		position: 'the claim’s reading of the marks fails after its keys were recorded',
		promised: 'queued',
		orders: [0, 1],
		others: ['notSent'],
		strike: async () => {
			await deliver([0]);
			// Its key's confirmation rounds go on after it: the calls counted from here are the next execution's.
			await keyStoreIdle();
			processedData.planned.set(call(2), 'fail');
		},
	},
	{
		// The key's "free" mark is undone: the execution claims the key's next generation and sends the order, and its
		// watch writes the mark again.
		position: 'a 429’s give-back of the key is undone by another process',
		promised: 'queued',
		strike: (double) => {
			double.faults.failNext(1, 429, { retryAfter: '0', match: 'transactions' });
			processedData.planned.set(2, 'undo');
		},
	},
	{
		position: 'a 429’s give-back of the key fails',
		promised: 'queued',
		strike: (double) => {
			double.faults.failNext(1, 429, { retryAfter: '0', match: 'transactions' });
			processedData.planned.set(2, 'fail');
		},
	},
	{ position: 'the settlement of a queued order fails', promised: 'queued', strike: () => void processedData.planned.set(2, 'fail') },
	{ position: 'the settlement of a queued order is undone by another process', promised: 'queued', strike: () => void processedData.planned.set(2, 'undo') },
	{
		position: 'the give-back of an order the service did not queue fails once',
		promised: 'notSent',
		strike: (double) => {
			double.faults.notQueuedOrders.add('A-0');
			processedData.planned.set(2, 'fail');
		},
	},
	{
		position: 'the give-back of an order the service did not queue is undone by another process',
		promised: 'notSent',
		strike: (double) => {
			double.faults.notQueuedOrders.add('A-0');
			processedData.planned.set(2, 'undo');
		},
	},
	{
		// Another process undoes the claim and the settlement's first four rounds, while each call takes 0.4 s, as a process starved of CPU sees them.
		position: 'the confirmation runs out of time on a starved CPU while another process rewrites the row',
		promised: 'queued',
		strike: () => {
			processedData.latencyMs = 200;
			for (let number = 1; number <= 5; number++) processedData.planned.set(number, 'undo');
		},
	},
	{
		// The case of two queue-mode workers: the other's call read the row before the claim and writes it back 0.3 s after.
		position: 'another process’s call that read before the claim writes after the send',
		promised: 'queued',
		strike: () => {
			processedData.seed(['key earlier order']);
			processedData.staleWrites.set(1, 300);
		},
	},
	{
		position: 'a stop while the account is paused after a 429, before composing',
		promised: 'notSent',
		strike: (double) => {
			double.faults.failNext(1, 429, { retryAfter: '2', match: 'transactions' });
			return { stop: requestsArrived(double, 1).then(async () => await new Promise((resolve) => setTimeout(resolve, 300))) };
		},
	},
	{
		position: 'a stop while its keys are claimed',
		promised: 'notSent',
		strike: () => {
			processedData.latencyMs = 100;
			return { stop: storeCalls(1) };
		},
	},
	{
		// Finding 4: the stop lands as the request is made, before its bytes leave.
		position: 'a stop after composing, before the bytes leave',
		promised: 'queued',
		strike: () => {
			const original = transport.apiRequest;
			let stopNow = () => {};
			const stop = new Promise<void>((resolve) => (stopNow = resolve));
			jest.spyOn(transport, 'apiRequest').mockImplementationOnce(async function (this: ThisParameterType<typeof original>, ...request: Parameters<typeof original>) {
				stopNow();
				await new Promise((resolve) => setTimeout(resolve, 50));
				return await original.call(this, ...request);
			});
			return { stop };
		},
	},
	{
		position: 'a stop while the request is under way',
		promised: 'queued',
		strike: (double) => {
			double.faults.delayMs = 300;
			return { stop: requestsArrived(double, 1) };
		},
	},
	{
		position: 'Max Wait Seconds runs out while the service refuses',
		promised: 'notSent',
		options: { maxWaitSeconds: 1 },
		strike: (double) => double.faults.failNext(100, 503, { retryAfter: '1', match: 'transactions' }),
	},
	{
		// Finding 3: the leading job's packing throws.
		position: 'an exception in choosing the request',
		promised: 'notSent',
		strike: () => void jest.spyOn(PackingCursor.prototype, 'next').mockImplementationOnce(() => { throw new Error('packing broke'); }),
	},
	{
		// Finding 5: the claim's own code throws before it records; A-1's key is another process's, which must stay.
		position: 'an exception while its keys are claimed',
		promised: 'notSent',
		orders: [0, 1],
		others: ['othersKey'],
		strike: () => {
			processedData.seed(['key A-1']);
			jest.spyOn(KeyClaims.prototype, 'claim').mockRejectedValueOnce(new Error('claim broke'));
		},
	},
	{
		// Finding 5: composing throws before `send`'s guard: the request's place must be freed.
		position: 'an exception in composing the request',
		promised: 'notSent',
		strike: () => void jest.spyOn(packing, 'joinBodies').mockImplementationOnce(() => { throw new Error('joining broke'); }),
	},
	{ position: 'an exception in sending', promised: 'unknown', strike: () => void jest.spyOn(transport, 'apiRequest').mockRejectedValueOnce(new Error('sending broke')) },
	{
		position: 'an exception in reading the answer',
		promised: 'unknown',
		strike: () => void jest.spyOn(SendJob.prototype, 'reported').mockImplementationOnce(() => { throw new Error('reading broke'); }),
	},
];

const MESSAGES: Partial<Record<Promised, RegExp>> = {
	notSent: /re-run sends it|running it again sends it once|Run the workflow again/,
	unknown: /may have queued|outcome is unknown/,
};

const { double, credentials } = useServiceDouble();

/** One execution of Create with the orders A-<number>, continuing on failure; undefined when it was stopped. */
async function deliver(orders: number[], stop?: Promise<unknown>, options: Record<string, unknown> = {}): Promise<NodeRunResult | undefined> {
	const run = runNode({ credentials: credentials(), parameters: keyed(options), items: orders.map((number) => order(number)), onError: 'continueRegularOutput', stopWhen: stop });
	return await run.catch(() => undefined);
}

describe('transaction › create with a Deduplication Key: every fault keeps the promise', () => {
	afterEach(() => jest.restoreAllMocks());

	it.each(rows)('$position', async (row) => {
		const orders = row.orders ?? [0];
		const promised = [row.promised, ...(row.others ?? [])];
		const { stop } = (await row.strike(double())) ?? {};
		const first = await deliver(orders, stop, row.options);
		await quiet(double());
		// The key's confirmation rounds, which go on after the execution.
		await keyStoreIdle();
		jest.restoreAllMocks();
		processedData.planned.clear();
		processedData.latencyMs = 0;
		double().faults.reset();

		orders.forEach((number, position) => {
			const key = `A-${number}`;
			const item = first?.main[position];
			const message = MESSAGES[promised[position]];
			if (message !== undefined && item !== undefined) expect(`${String(item.error ?? '')} ${String(item.message ?? '')} ${String(item.description ?? '')}`).toMatch(message);
			expect([key, processedData.takes(key)]).toEqual([key, promised[position] !== 'notSent']);
		});

		const again = await deliver(orders);
		const queued = double().transactions.queuedOrderIds();
		orders.forEach((number, position) => {
			const key = `A-${number}`;
			const times = queued.filter((id) => id === key).length;
			// Not sent: the re-run sends it once. Queued or unknown: the re-run skips it, so it is never queued twice.
			if (promised[position] === 'unknown') expect(times).toBeLessThanOrEqual(1);
			else expect([key, times]).toEqual([key, promised[position] === 'othersKey' ? 0 : 1]);
			expect(again?.main[position]).toMatchObject(promised[position] === 'notSent' ? { queued: true } : { skipped: true });
		});
	}, 30_000);

	it('never holds n8n’s thread while a fault of the sender repeats: a 1 ms timer fires within 250 ms, and the account serves the others', async () => {
		jest.spyOn(PackingCursor.prototype, 'next').mockImplementation(() => { throw new Error('packing broke'); });
		let firedAfter = Number.POSITIVE_INFINITY;
		const started = performance.now();
		setTimeout(() => (firedAfter = performance.now() - started), 1);
		const broken = await Promise.all([deliver([0]), deliver([1])]);
		jest.restoreAllMocks();
		const served = await deliver([2]);

		// A fault that repeats without yielding would hold the thread for good; 250 ms leaves room for a loaded machine's stalls.
		expect(firedAfter).toBeLessThan(250);
		for (const result of broken) expect(result?.main[0].error).toMatch(/^Not sent: packing broke/);
		expect(served?.main[0]).toMatchObject({ queued: true });
		expect(double().transactions.queuedOrderIds()).toEqual(['A-2']);
	});
});
