/**
 * A shop's rush (issue 43): one-order executions arriving far faster than the account's budget,
 * handed to the account's real sender and gate of one or two n8n processes (each its own, knowing
 * nothing of the other), against one token bucket (test/double/budget.ts: burst = rate, 429 with
 * `Retry-After: 1` beyond). The service refuses at once and takes 40 to 300 ms to accept, as a
 * gateway refuses before any work: refusals come back before the acceptances sent earlier. The answers
 * reach the gate as the transport hands them (transport/index.ts). Jest's clock runs the sender's
 * naps and `monotonicMs`, and chance is fixed, so a run is the same on any machine.
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { RequestBudget } from '../double/budget';
import type { PostBody } from '../../nodes/MailingPlatform/actions/transaction/accountSender';
import { AccountSender } from '../../nodes/MailingPlatform/actions/transaction/accountSender';
import type { QueueReport } from '../../nodes/MailingPlatform/actions/transaction/results';
import { SendJob } from '../../nodes/MailingPlatform/actions/transaction/sendJob';
import { AccountGate, monotonicMs } from '../../nodes/MailingPlatform/transport/accountGate';
import { ServiceError } from '../../nodes/MailingPlatform/transport/errors';
import { retryDelayMs } from '../../nodes/MailingPlatform/transport/retry';

const ORDERS = 400;
const ORDERS_PER_SECOND = 40;

const node: INode = { id: 'node', name: 'Mailing Platform', type: 'mailingPlatform', typeVersion: 1, position: [0, 0], parameters: {} };
const context = { getNode: () => node } as unknown as IExecuteFunctions;

interface Process {
	sender: AccountSender;
	accepted: number;
	refused: number;
}

/** One n8n process: its gate and sender, posting into `budget` (none: the account takes everything). */
function n8nProcess(budget: RequestBudget | undefined, acceptMs: number): Process {
	const gate = new AccountGate();
	const post: PostBody = async (_context, { body }) => {
		const sentAtMs = monotonicMs();
		const refusal = budget?.take();
		if (refusal === undefined) await sleep(acceptMs);
		const headers = Object.fromEntries(Object.entries(refusal?.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
		gate.answered(sentAtMs, refusal?.status ?? 200, headers);
		if (refusal !== undefined) {
			self.refused++;
			gate.pause(retryDelayMs(0, headers['retry-after']), 'the service answered 429 (too many requests)');
			throw Object.assign(new ServiceError(node, { message: 'Too many requests', httpCode: '429' }), { notProcessed: true });
		}
		self.accepted++;
		const orders = (JSON.parse(body.toString('utf8')) as Array<{ order: string }>).map((transaction) => transaction.order);
		return orders.map((order): QueueReport => ({ queued: true, contact: null, order }));
	};
	// Every order is far smaller than a probe may be: none waits for a probe.
	const probe = async () => {
		throw new Error('no probe was expected');
	};
	const self: Process = { sender: new AccountSender(gate, post, probe), accepted: 0, refused: 0 };
	return self;
}

/** Order A-<index> reaches process index % processes at index / 40 s; resolves with each order's reports and how long its execution took. */
async function rush(processes: Process[], maxRequestsPerSecond = 0) {
	const executions = Array.from({ length: ORDERS }, async (_, index) => {
		await sleep((index * 1000) / ORDERS_PER_SECOND);
		const arrivedMs = monotonicMs();
		const job = await new Promise<SendJob>((done) => {
			const settings = { maxRequestBytes: 10_000, stopAtFailure: true, ignoreInvalid: true, maxWaitSeconds: 120 };
			processes[index % processes.length].sender.submit(new SendJob(context, [{ order: `A-${index}` }], [0], settings, done), { maxRequestsPerSecond });
		});
		const reports = job.outcomes.flatMap((outcome) => (outcome.kind === 'reported' ? outcome.reports.map((report) => report.order) : [outcome.kind]));
		return { reports, tookMs: monotonicMs() - arrivedMs };
	});
	const all = Promise.all(executions);
	await jest.advanceTimersByTimeAsync(60_000);
	return await all;
}

const everyOrderOnce = Array.from({ length: ORDERS }, (_, index) => [`A-${index}`]);

describe('a shop’s rush against an account’s budget, with no budget set anywhere', () => {
	beforeEach(() => {
		jest.useFakeTimers();
		// Where a gate comes back from a pause within its pacing interval (the spread of processes refused together).
		jest.spyOn(Math, 'random').mockReturnValue(0.5);
	});
	afterEach(() => {
		jest.useRealTimers();
		jest.restoreAllMocks();
	});

	const accounts = [40, 80, 300].flatMap((acceptMs) => [2, 4, 10].flatMap((rate) => [1, 2].map((processes) => ({ acceptMs, rate, processes }))));

	it.each(accounts)('$processes process(es), an account of $rate per second taking $acceptMs ms: each refused ≤ 5% of its accepted + 1 (its first lesson), every order queued once', async ({ acceptMs, rate, processes }) => {
		const budget = new RequestBudget({ rate, burst: rate }, monotonicMs);
		const each = Array.from({ length: processes }, () => n8nProcess(budget, acceptMs));
		const results = await rush(each);

		expect(results.map((result) => result.reports)).toEqual(everyOrderOnce);
		for (const { accepted, refused } of each) expect(refused).toBeLessThanOrEqual(0.05 * accepted + 1);
	});

	it('is never refused with each process’s share of the budget in the credential (Max Requests per Second)', async () => {
		const budget = new RequestBudget({ rate: 4, burst: 4 }, monotonicMs);
		const each = [n8nProcess(budget, 80), n8nProcess(budget, 80)];
		const results = await rush(each, 1.8);

		expect(results.map((result) => result.reports)).toEqual(everyOrderOnce);
		expect(each.map(({ refused }) => refused)).toEqual([0, 0]);
	});

	it('slows a lone process that is never refused in nothing: each order leaves in the next request, at most one answer’s wait away', async () => {
		const acceptMs = 300;
		const lone = n8nProcess(undefined, acceptMs);
		const results = await rush([lone]);

		expect(results.map((result) => result.reports)).toEqual(everyOrderOnce);
		expect(Math.max(...results.map((result) => result.tookMs))).toBeLessThanOrEqual(2 * acceptMs);
		expect(lone.refused).toBe(0);
	});
});
