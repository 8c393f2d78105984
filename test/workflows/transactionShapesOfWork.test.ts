import { deliverAtOnce, everyOnce, outcomes, queuedCounts, range } from '../harness/deliveries';
import { useServiceDouble } from '../harness/double';
import { registerSecondProcess } from '../harness/processes';
import { processedData } from '../harness/processedData';
import { jsonMode, order } from '../harness/transactions';
import { runNode } from '../harness/workflow';

/**
 * The account's sender with more than one shape of work at once, each a real workflow run by
 * n8n-core: a large execution beside one-order executions, and keyed orders waiting when n8n
 * dies. A second n8n process is the node with its own copy of every module, sharing the MODEL
 * of n8n's store (test/harness/processedData.ts); `npm run test:peak` kills a real n8n.
 */
const SECOND_PROCESS = 'test.mailingPlatformInAnotherProcess';
registerSecondProcess(SECOND_PROCESS);

const sleep = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

describe('transaction › create: a large execution beside one-order executions', () => {
	const { double, credentials } = useServiceDouble();

	it('sends all of an execution whose requests take longer than Max Wait Seconds, and the orders arriving meanwhile beside it, not after it', async () => {
		// About 300 bytes per order: 60 requests of 10 orders, each read at 20 s per MB (some 60 ms).
		double().faults.msPerMegabyte = 20_000;
		const bulkOptions = { maxRequestBytes: 3_200, maxWaitSeconds: 1 };
		const bulk = runNode({ credentials: credentials(), parameters: { ...jsonMode, options: bulkOptions }, items: range(600).map((number) => order(number)) });
		await sleep(500);
		const small = range(5).map(async (index) => {
			await sleep(index * 100);
			return await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(1_000 + index)] });
		});

		const [bulkRun, ...smallRuns] = await Promise.all([bulk, ...small]);
		expect(bulkRun.main.map((json) => json.queued)).toEqual(range(600).map(() => true));
		expect(smallRuns.map((run) => run.main[0].queued)).toEqual(range(5).map(() => true));
		const queued = double().transactions.queuedOrderIds();
		const lastOfBulk = queued.indexOf('A-599');
		expect(range(5).map((index) => queued.indexOf(`A-${1_000 + index}`) < lastOfBulk)).toEqual(range(5).map(() => true));
		expect(new Set(queued).size).toBe(605);
	});

	it('stops only the execution whose transaction is too large alone; the executions waiting beside it are sent', async () => {
		// The others arrive while its first request is under way, so it reaches its refusal beside them.
		double().faults.delayMs = 100;
		const parameters = { ...jsonMode, options: { maxRequestBytes: 1024 } };
		const stopping = runNode({ credentials: credentials(), parameters, items: [order(0, 700), order(1, 3000), order(2, 700)] });
		while (double().requestsTo('transactions').length === 0) await sleep(5);
		const others = range(5).map(async (index) => await runNode({ credentials: credentials(), parameters, items: [order(10 + index, 700)] }));

		const [stopped, ...otherRuns] = await Promise.all([stopping, ...others]);
		expect(stopped.error?.message).toMatch(/^The transaction alone is \d,\d{3} bytes as JSON, more than one request may carry \(1,024 bytes\)$/);
		expect(otherRuns.map((run) => run.error?.message ?? run.main[0].queued)).toEqual(range(5).map(() => true));
		expect(double().transactions.queuedOrderIds().sort()).toEqual(['A-0', 'A-10', 'A-11', 'A-12', 'A-13', 'A-14']);
	});
});

describe('transaction › create: one workflow’s slow store beside another workflow on the account', () => {
	const { double, credentials } = useServiceDouble();

	it('sends the other workflow’s order while the keyed one’s keys are still being claimed', async () => {
		// Each read and write of n8n's store takes 0.3 s: the keyed claim takes 0.6 s.
		processedData.latencyMs = 300;
		const keyed = runNode({ credentials: credentials(), parameters: { ...jsonMode, options: { deduplicationKey: '={{ $json.content["order.id"] }}' } }, items: [order(0)] });
		while (processedData.calls.length === 0) await sleep(5);
		const other = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(1)], workflowId: 'another-workflow' });

		expect(other.main[0].queued).toBe(true);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-1']);
		expect((await keyed).main[0]).toMatchObject({ queued: true, deduplicationKey: 'A-0' });
	});
});

describe('transaction › create: n8n dies while keyed orders wait (model of n8n’s store)', () => {
	const { double, credentials } = useServiceDouble();

	it('holds no key of an order that has not left, so that a redelivery to another process sends it, and the first, going on, skips it', async () => {
		// The first requests are refused with a pause long enough for the redelivery on a loaded machine: every order of the first process waits.
		double().faults.failNext(2, 429, { retryAfter: '6', match: 'transactions' });
		const first = deliverAtOnce(credentials(), range(20));
		while (double().requestsTo('transactions').length < 2) await sleep(5);
		await sleep(300);

		expect(range(20).filter((number) => processedData.takes(`A-${number}`))).toEqual([]);
		// Had the first process died here, the shop's redelivery would reach another one.
		const redelivered = await deliverAtOnce(credentials(), range(20), () => ({ process: SECOND_PROCESS }));
		expect(outcomes(redelivered)).toEqual(range(20).map(() => 'queued'));

		expect(outcomes(await first)).toEqual(range(20).map(() => 'skipped'));
		expect(queuedCounts(double())).toEqual(everyOnce(20));
	});

	it('claims the keys of the orders leaving in one request together, in one call of n8n’s store', async () => {
		double().faults.delayMs = 1_000;
		// Two orders take both places for the account's requests; ten more wait, then leave together.
		const busy = deliverAtOnce(credentials(), [100, 101]);
		while (double().requestsTo('transactions').length < 2) await sleep(5);
		const together = deliverAtOnce(credentials(), range(10));
		while (double().requestsTo('transactions').length < 3) await sleep(5);
		const keys = new Set(range(10).map((number) => `key A-${number}`));
		const claims = processedData.calls.filter((call) => call.operation === 'checkProcessedAndRecord' && call.items.some((item) => keys.has(String(item))));

		expect(claims).toHaveLength(1);
		expect(claims[0].items.filter((item) => keys.has(String(item)))).toHaveLength(10);
		expect(outcomes([...(await busy), ...(await together)])).toEqual(range(12).map(() => 'queued'));
	});
});
