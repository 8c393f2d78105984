import type { IExecuteFunctions, INode } from 'n8n-workflow';

import type { PostBody, ProbeAccount } from '../../nodes/MailingPlatform/actions/transaction/accountSender';
import { AccountSender } from '../../nodes/MailingPlatform/actions/transaction/accountSender';
import type { QueueReport } from '../../nodes/MailingPlatform/actions/transaction/results';
import type { JobSettings } from '../../nodes/MailingPlatform/actions/transaction/sendJob';
import { SendJob } from '../../nodes/MailingPlatform/actions/transaction/sendJob';
import { AccountGate, monotonicMs, PROBE_BYTES } from '../../nodes/MailingPlatform/transport/accountGate';
import { ServiceError } from '../../nodes/MailingPlatform/transport/errors';

/**
 * The account's sender as executions running at the same time meet it: one order each, as a
 * shop's webhook delivers them, or many, as a nightly bulk does. The service here answers each
 * request when the test lets it.
 */
const node: INode = { id: 'node', name: 'Mailing Platform', type: 'mailingPlatform', typeVersion: 1, position: [0, 0], parameters: {} };
const context = { getNode: () => node } as unknown as IExecuteFunctions;

function failure(status: string, flags: Partial<Pick<ServiceError, 'outcomeUnknown' | 'notProcessed'>> = { notProcessed: true }) {
	return Object.assign(new ServiceError(node, { message: `Refused ${status}`, httpCode: status }), { httpCode: status }, flags);
}

interface Request {
	orders: string[];
	/** Lets the service answer this request. */
	answer: () => void;
}

/**
 * A service whose answers wait until the test calls a request's `answer()` (or at once, with
 * `answerAtOnce`); each report names its order. `refuse` may fail the request of a given number;
 * a 429 pauses the account's gate `pauseMs` (50).
 */
function service(gate: AccountGate, options: { answerAtOnce?: boolean; refuse?: (call: number, orders: string[]) => ServiceError | undefined; pauseMs?: number } = {}) {
	const requests: Request[] = [];
	let arrived: () => void = () => {};
	const post: PostBody = async (_context, { body }) => {
		const orders = (JSON.parse(body.toString('utf8')) as Array<{ order: string }>).map((transaction) => transaction.order);
		let answer: () => void = () => {};
		const answered = new Promise<void>((resolve) => (answer = resolve));
		const call = requests.push({ orders, answer }) - 1;
		arrived();
		if (options.answerAtOnce !== true) await answered;
		const refused = options.refuse?.(call, orders);
		if (refused !== undefined) {
			if (refused.httpCode === '429') gate.pause(options.pauseMs ?? 50, 'the service answered 429 (too many requests)');
			throw refused;
		}
		return orders.map((order): QueueReport => ({ queued: true, contact: null, order }));
	};
	return {
		post,
		requests,
		/** Resolves once `count` requests have arrived. */
		async arrivals(count: number): Promise<void> {
			while (requests.length < count) await new Promise<void>((resolve) => (arrived = resolve));
		},
	};
}

const settingsOf = (settings: Partial<JobSettings>): JobSettings => ({ maxRequestBytes: 10_000, stopAtFailure: true, ignoreInvalid: true, maxWaitSeconds: 60, ...settings });

/** An execution handing the sender its orders (each a transaction `{ order }`), its credential with `maxRequestsPerSecond`. */
function execution(sender: AccountSender, orders: string[], settings: Partial<JobSettings> = {}, maxRequestsPerSecond = 0) {
	let stop = () => {};
	const done = new Promise<SendJob>((resolve) => {
		const job = new SendJob(context, orders.map((order) => ({ order })), orders.map((_, index) => index), settingsOf(settings), resolve);
		stop = () => sender.withdraw(job);
		sender.submit(job, { maxRequestsPerSecond });
	});
	return { done, stop };
}

/** Each item's order as reported, or its outcome's kind and message. */
const reportOf = async (run: { done: Promise<SendJob> }) => {
	const { outcomes } = await run.done;
	return outcomes
		.sort((a, b) => a.itemIndexes[0] - b.itemIndexes[0])
		.flatMap((outcome) => (outcome.kind === 'reported' ? outcome.reports.map((report) => report.order) : [`${outcome.kind}: ${'error' in outcome ? outcome.error.message : ''}`]));
};

/** The probe of a test in which no refusal is taught to the gate: never called. */
const probeNotExpected: ProbeAccount = async () => {
	throw new Error('no probe was expected');
};

const range = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${index}`);

describe('the account’s sender, shared by executions running at the same time', () => {
	afterEach(() => jest.restoreAllMocks());

	it('sends a lone order at once, a second beside it, and those that arrive while both are under way together in the next request', async () => {
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate);
		const sender = new AccountSender(gate, post, probeNotExpected);
		const runs = [execution(sender, ['A-0']), execution(sender, ['A-1'])];
		await arrivals(2);
		runs.push(...['A-2', 'A-3', 'A-4'].map((order) => execution(sender, [order])));
		requests[0].answer();
		await arrivals(3);
		requests[1].answer();
		requests[2].answer();

		expect(await Promise.all(runs.map(reportOf))).toEqual([['A-0'], ['A-1'], ['A-2'], ['A-3'], ['A-4']]);
		expect(requests.map((request) => request.orders)).toEqual([['A-0'], ['A-1'], ['A-2', 'A-3', 'A-4']]);
	});

	it('starts a second request beside one under way only once that one has taken 0.2 s: a quicker one is waited for', async () => {
		// The sender's clock stands still unless the test moves it, so a loaded machine changes nothing.
		let clockMs = 1_000;
		jest.spyOn(performance, 'now').mockImplementation(() => clockMs);
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate);
		const sender = new AccountSender(gate, post, probeNotExpected);
		const first = execution(sender, ['A-0']);
		await arrivals(1);
		const quick = execution(sender, ['A-1']);
		clockMs += 100;
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(requests).toHaveLength(1);
		requests[0].answer();
		await arrivals(2);
		expect(requests[1].orders).toEqual(['A-1']);
		const beside = execution(sender, ['A-2']);
		clockMs += 199;
		await new Promise((resolve) => setTimeout(resolve, 300));
		expect(requests).toHaveLength(2);
		clockMs += 1;
		await arrivals(3);

		requests[1].answer();
		requests[2].answer();
		expect(await Promise.all([first, quick, beside].map(reportOf))).toEqual([['A-0'], ['A-1'], ['A-2']]);
	});

	it('hands each execution of a shared request its own reports, several per execution, in order', async () => {
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate);
		const sender = new AccountSender(gate, post, probeNotExpected);
		const first = [execution(sender, ['X-0']), execution(sender, ['Y-0'])];
		await arrivals(2);
		const runs = [execution(sender, range('A', 3)), execution(sender, range('B', 2)), execution(sender, range('C', 4))];
		for (const request of requests) request.answer();
		await arrivals(3);
		requests[2].answer();
		await Promise.all(first.map((run) => run.done));

		expect(requests[2].orders).toEqual([...range('A', 3), ...range('B', 2), ...range('C', 4)]);
		expect(await Promise.all(runs.map(reportOf))).toEqual([range('A', 3), range('B', 2), range('C', 4)]);
	});

	it('pauses once after a 429 and sends the refused orders, first, with those that arrived meanwhile in the next request', async () => {
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate, { refuse: (call) => (call === 0 ? failure('429') : undefined), pauseMs: 250 });
		const sender = new AccountSender(gate, post, probeNotExpected);
		const runs = [execution(sender, ['A-0']), execution(sender, ['A-1'])];
		await arrivals(2);
		requests[0].answer();
		runs.push(execution(sender, ['A-2']));
		requests[1].answer();
		await arrivals(3);
		requests[2].answer();

		expect(await Promise.all(runs.map(reportOf))).toEqual([['A-0'], ['A-1'], ['A-2']]);
		expect(requests.map((request) => request.orders)).toEqual([['A-0'], ['A-1'], ['A-0', 'A-2']]);
		// The refused order waits out most of the pause (a loaded machine takes some of it before the order waits again).
		expect((await runs[0].done).note.waits.get('the service answered 429 (too many requests)')).toBeGreaterThanOrEqual(150);
	});

	it('never cuts off an execution whose own requests take longer than Max Wait Seconds one after the other', async () => {
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate);
		const sender = new AccountSender(gate, post, probeNotExpected);
		// Five orders, one per request of 30 bytes at most; each request takes longer than Max Wait Seconds.
		const bulk = execution(sender, range('B', 5), { maxRequestBytes: 30, maxWaitSeconds: 0.2 });
		for (let request = 1; request <= 5; request++) {
			await arrivals(request);
			await new Promise((resolve) => setTimeout(resolve, 300));
			requests[request - 1].answer();
		}

		expect(await reportOf(bulk)).toEqual(range('B', 5));
	});

	it('fails an order as not sent once it waited Max Wait Seconds while the service took nothing, saying what it waited for', async () => {
		const gate = new AccountGate();
		const { post, requests } = service(gate, { answerAtOnce: true, refuse: () => failure('429') });
		const sender = new AccountSender(gate, post, probeNotExpected);

		const [outcome] = (await execution(sender, ['A-0'], { maxWaitSeconds: 0.3 }).done).outcomes;
		expect(outcome).toMatchObject({ kind: 'failed', itemIndexes: [0] });
		const error = (outcome as { error: ServiceError }).error;
		expect(error.message).toBe("Not sent: it waited 0.3 s for the account's requests (Max Wait Seconds) because the service answered 429 (too many requests)");
		expect(error.description).toBe(`The service did not get it, so running it again sends it once. Requests that carried it and were refused: ${requests.length}.`);
		expect(error.notProcessed).toBe(true);
	});

	it('sends a small execution’s order beside a large execution’s request under way, not behind it, and never inside one of its requests', async () => {
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate);
		const sender = new AccountSender(gate, post, probeNotExpected);
		const bulk = execution(sender, range('B', 6), { maxRequestBytes: 40 });
		await arrivals(1);
		const small = execution(sender, ['S-0']);
		await arrivals(2);
		expect(requests[1].orders).toEqual(['S-0']);
		// The bulk's next body waits for its request under way; the small order's request is not joined by it.
		requests[1].answer();
		expect(await reportOf(small)).toEqual(['S-0']);
		for (let request = 0; requests.length < 4 || request < requests.length; request++) {
			await arrivals(request + 1);
			requests[request].answer();
		}

		expect(await reportOf(bulk)).toEqual(range('B', 6));
		expect(requests.filter((request) => request.orders.includes('S-0'))).toHaveLength(1);
	});

	it('never lets a small execution’s order ride in a request a bulk leads, even where the room greedy packing left would take it', async () => {
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate);
		const sender = new AccountSender(gate, post, probeNotExpected);
		const busy = [execution(sender, ['X-0']), execution(sender, ['Y-0'])];
		await arrivals(2);
		// Two of the bulk's orders (31 bytes each) fill 65 of its 80 bytes: the small order (17 bytes with its brackets) would fit beside them.
		const long = range('B', 4).map((order) => `${order}-${'x'.repeat(14)}`);
		const bulk = execution(sender, long, { maxRequestBytes: 80 });
		const small = execution(sender, ['S-0']);
		requests[0].answer();
		await arrivals(3);
		expect(requests[2].orders).toEqual(long.slice(0, 2));
		requests[1].answer();
		await arrivals(4);
		expect(requests[3].orders).toEqual(['S-0']);
		for (let request = 2; request < 5; request++) {
			await arrivals(request + 1);
			requests[request].answer();
		}

		expect(await reportOf(small)).toEqual(['S-0']);
		expect(await reportOf(bulk)).toEqual(long);
		await Promise.all(busy.map((run) => run.done));
	});

	it('lets the execution that has waited longest lead, so that one with Ignore Invalid Transactions off, which shares its request with nobody, is not overtaken twice', async () => {
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate);
		const sender = new AccountSender(gate, post, probeNotExpected);
		const busy = [execution(sender, ['X-0']), execution(sender, ['Y-0'])];
		await arrivals(2);
		const runs = [execution(sender, ['A-0']), execution(sender, ['A-1'], { ignoreInvalid: false }), execution(sender, ['A-2'])];
		requests[0].answer();
		await arrivals(3);
		requests[1].answer();
		await arrivals(4);
		requests[2].answer();
		requests[3].answer();
		await Promise.all([...busy, ...runs].map((run) => run.done));

		// A later execution may join the request ahead of it, but the strict one leads the next.
		expect(requests.slice(2).map((request) => request.orders)).toEqual([['A-0', 'A-2'], ['A-1']]);
	});

	it('withdraws a stopped execution’s order that has not left, and lets a request under way finish for the others', async () => {
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate);
		const sender = new AccountSender(gate, post, probeNotExpected);
		const busy = [execution(sender, ['X-0']), execution(sender, ['Y-0'])];
		await arrivals(2);
		const stopped = execution(sender, ['A-1']);
		const last = execution(sender, ['A-2']);
		busy[0].stop();
		stopped.stop();
		expect(await reportOf(stopped)).toEqual(['failed: Not sent: the execution was stopped before this transaction left']);
		requests[0].answer();
		await arrivals(3);
		requests[1].answer();
		requests[2].answer();

		expect(await reportOf(busy[0])).toEqual(['X-0']);
		expect(await reportOf(last)).toEqual(['A-2']);
		expect(requests.map((request) => request.orders)).toEqual([['X-0'], ['Y-0'], ['A-2']]);
	});

	it('after a 413 sends the refused transactions again at half the size, and keeps the smallest limit two refusals taught', async () => {
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate, { refuse: (_call, orders) => (orders.length > 2 ? failure('413') : undefined) });
		const sender = new AccountSender(gate, post, probeNotExpected);
		const large = execution(sender, range('A', 8));
		await arrivals(1);
		const smaller = execution(sender, range('B', 4));
		await arrivals(2);
		// The smaller refusal is answered first: the larger one's half must not raise the limit it taught.
		requests[1].answer();
		requests[0].answer();
		for (let request = 2; request < 14; request++) {
			await arrivals(request + 1);
			requests[request].answer();
		}

		expect(await reportOf(large)).toEqual(range('A', 8));
		expect(await reportOf(smaller)).toEqual(range('B', 4));
		expect(requests.map((request) => request.orders.length)).toEqual([8, 4, ...Array(12).fill(1)]);
	});

	it('after a 413 for a request several executions share sends each one’s transactions again, smaller, each item keeping its own report', async () => {
		const gate = new AccountGate();
		const { post, requests, arrivals } = service(gate, { refuse: (call) => (call === 2 ? failure('413') : undefined) });
		const sender = new AccountSender(gate, post, probeNotExpected);
		const busy = [execution(sender, ['X-0']), execution(sender, ['Y-0'])];
		await arrivals(2);
		const runs = [execution(sender, range('A', 3)), execution(sender, range('B', 2)), execution(sender, range('C', 1))];
		requests[0].answer();
		requests[1].answer();
		for (let request = 2; runs.length > 0 && request < 12; request++) {
			await Promise.race([arrivals(request + 1), Promise.all(runs.map((run) => run.done))]);
			requests[request]?.answer();
		}

		expect(requests[2].orders).toEqual([...range('A', 3), ...range('B', 2), ...range('C', 1)]);
		expect(await Promise.all(runs.map(reportOf))).toEqual([range('A', 3), range('B', 2), range('C', 1)]);
		// Sent again at half the refused size, every transaction once.
		const again = requests.slice(3).map((request) => request.orders);
		expect(again.flat().sort()).toEqual([...range('A', 3), ...range('B', 2), ...range('C', 1)].sort());
		expect(Math.max(...again.map((orders) => orders.length))).toBeLessThan(6);
		await Promise.all(busy.map((run) => run.done));
	});

	it('gives every execution of a shared request whose outcome is unknown that failure, and sends none of it again', async () => {
		const gate = new AccountGate();
		const unknown = failure('500', { outcomeUnknown: true });
		const { post, requests, arrivals } = service(gate, { refuse: (call) => (call === 2 ? unknown : undefined) });
		const sender = new AccountSender(gate, post, probeNotExpected);
		const busy = [execution(sender, ['X-0']), execution(sender, ['Y-0'])];
		await arrivals(2);
		const runs = [execution(sender, range('A', 2)), execution(sender, range('B', 1))];
		for (const request of requests) request.answer();
		await arrivals(3);
		requests[2].answer();
		await Promise.all(busy.map((run) => run.done));

		const outcomes = await Promise.all(runs.map(async (run) => (await run.done).outcomes));
		expect(outcomes).toEqual([[{ kind: 'failed', itemIndexes: [0, 1], error: unknown }], [{ kind: 'failed', itemIndexes: [0], error: unknown }]]);
		expect(requests).toHaveLength(3);
	});
});

describe('the account’s sender and its gate', () => {
	it('paces the account’s requests to the credential’s Max Requests per Second', async () => {
		const gate = new AccountGate();
		const { post, requests } = service(gate, { answerAtOnce: true });
		const started: number[] = [];
		const timed: PostBody = async (context, request) => {
			started.push(performance.now());
			return await post(context, request);
		};
		const sender = new AccountSender(gate, timed, probeNotExpected);
		await Promise.all(['A-0', 'A-1', 'A-2'].map(async (order) => await execution(sender, [order], { ignoreInvalid: false }, 5).done));

		expect(requests).toHaveLength(3);
		// 0.2 s apart at the gate; a loaded machine may start one request late and the next on time.
		const gaps = started.slice(1).map((at, index) => at - started[index]);
		expect(Math.min(...gaps)).toBeGreaterThanOrEqual(150);
	});
});

describe('the account’s gate', () => {
	const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

	it('paces by the smallest Max Requests per Second of the credentials in use, and by the other once that one left', async () => {
		const gate = new AccountGate();
		gate.enter({ maxRequestsPerSecond: 20 });
		const leaveSlow = gate.enter({ maxRequestsPerSecond: 5 });
		gate.enter({ maxRequestsPerSecond: 0 });
		gate.takeStart();
		// 0.2 s at 5 per second: more than the 0.05 s of 20 per second, however slowly this runs.
		expect(gate.waitMs()).toBeGreaterThan(50);
		expect(gate.whyWaiting()).toBe("the credential's Max Requests per Second (5)");

		leaveSlow();
		await sleep(gate.waitMs());
		gate.takeStart();
		expect(gate.waitMs()).toBeLessThanOrEqual(50);
		expect(gate.whyWaiting()).toBe("the credential's Max Requests per Second (20)");
	});

	it('after a refusal sends a transaction larger than a probe only once a request that carries none was accepted', async () => {
		const gate = new AccountGate();
		const { post, requests } = service(gate, { answerAtOnce: true });
		const probesBefore: number[] = [];
		const probe: ProbeAccount = async () => {
			probesBefore.push(requests.length);
			gate.answered(monotonicMs(), 200, {});
		};
		// The account refused a request: until it takes one sent since, a request risks PROBE_BYTES at most.
		gate.answered(monotonicMs(), 429, {});
		const sender = new AccountSender(gate, post, probe);
		const large = 'x'.repeat(PROBE_BYTES);

		const reported = await reportOf(execution(sender, [large], { maxRequestBytes: 9_000_000 }));

		expect(reported.map((order) => String(order).length)).toEqual([PROBE_BYTES]);
		expect(probesBefore).toEqual([0]);
		expect(requests).toHaveLength(1);
	});

	it('pauses the account between probes that do not reach the service, as between refused requests', async () => {
		const gate = new AccountGate();
		const { post, requests } = service(gate, { answerAtOnce: true });
		const probedAtMs: number[] = [];
		const probe: ProbeAccount = async () => {
			probedAtMs.push(monotonicMs());
			if (probedAtMs.length < 3) throw Object.assign(new ServiceError(node, { message: 'The service could not be reached' }), { notProcessed: true });
			gate.answered(monotonicMs(), 200, {});
		};
		gate.answered(monotonicMs(), 429, {});
		const sender = new AccountSender(gate, post, probe);

		await reportOf(execution(sender, ['x'.repeat(PROBE_BYTES)], { maxRequestBytes: 9_000_000 }));

		expect(probedAtMs).toHaveLength(3);
		expect(probedAtMs[1] - probedAtMs[0]).toBeGreaterThanOrEqual(200);
		expect(requests).toHaveLength(1);
	});

	it('says why a request waits only while something holds it', () => {
		const gate = new AccountGate();
		gate.enter(undefined);
		gate.takeStart();
		expect([gate.waitMs(), gate.whyWaiting()]).toEqual([0, '']);
		gate.pause(1_000, 'the service answered 429 (too many requests)');
		expect(gate.whyWaiting()).toBe('the service answered 429 (too many requests)');
	});
});
