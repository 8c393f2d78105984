import { useServiceDouble } from '../harness/double';
import { processedData } from '../harness/processedData';
import { range } from '../harness/deliveries';
import { jsonMode, order } from '../harness/transactions';
import type { NodeRunResult } from '../harness/workflow';
import { runNode } from '../harness/workflow';

/**
 * A shop's rush: one order per execution, many executions at the same time in one n8n process,
 * all sending with the same account. Each is a real workflow run by n8n-core.
 */
/** Order A-<number> for a new customer of its own, created by the import form, so each report names whose it is. */
function withOwnContact(number: number) {
	const { type, content } = order(number);
	return { type, import: { contact: { email: `customer-${number}@example.com`, permission: 3 }, content } };
}
const hintsOf = (result: NodeRunResult) => result.run.data.resultData.runData['Mailing Platform'][0].hints?.map((hint) => hint.message) ?? [];

describe('transaction › create at a shop’s rush', () => {
	const { double, credentials } = useServiceDouble();

	it('shares the account’s requests between executions running at the same time, each item keeping its own report', async () => {
		double().faults.delayMs = 50;
		const runs = await Promise.all(range(40).map(async (number) => await runNode({ credentials: credentials(), parameters: jsonMode, items: [withOwnContact(number)] })));

		expect(double().transactions.queuedOrderIds().sort()).toEqual(range(40).map((number) => `A-${number}`).sort());
		expect(double().requestsTo('transactions').length).toBeLessThanOrEqual(4);
		expect(runs.map((run) => (run.main[0].contact as { email?: string }).email)).toEqual(range(40).map((number) => `customer-${number}@example.com`));
		expect(runs.map((run) => run.main[0].queued)).toEqual(range(40).map(() => true));
		// On a busy machine the first request may take long enough for a truthful "Waited 0.1 s ..." in front.
		expect(hintsOf(runs[39])).toEqual([expect.stringMatching(/(^|\. )Its request also carried the transactions of \d+ other executions running at the same time\.$/)]);
	});

	it('loses no order to 429: the account pauses once, and every execution’s order is queued once, saying how long it waited and why', async () => {
		double().faults.failNext(3, 429, { retryAfter: '1', match: 'transactions' });
		const runs = await Promise.all(range(20).map(async (number) => await runNode({ credentials: credentials(), parameters: jsonMode, items: [withOwnContact(number)] })));

		expect(runs.map((run) => run.error?.message)).toEqual(range(20).map(() => undefined));
		expect(double().transactions.queuedOrderIds()).toHaveLength(20);
		expect(new Set(double().transactions.queuedOrderIds()).size).toBe(20);
		const statuses = double().requestsTo('transactions').map((request) => request.status);
		expect(statuses.filter((status) => status === 429)).toHaveLength(3);
		expect(hintsOf(runs[0])[0]).toMatch(/^Waited \d+(\.\d)? s for the account's requests because the service answered 429 \(too many requests\)\./);
	});

	it('paces every request of the account to the credential’s Max Requests per Second, reads included', async () => {
		const started = performance.now();
		const parameters = { resource: 'report', operation: 'countBlocks' };
		await runNode({ credentials: { ...credentials(), maxRequestsPerSecond: 10 }, parameters, items: [{}, {}, {}, {}] });

		expect(double().requestsTo('reports')).toHaveLength(4);
		expect(performance.now() - started).toBeGreaterThanOrEqual(290);
	});
});

describe('transaction › create: stopping one execution at a rush', () => {
	const { double, credentials } = useServiceDouble();

	/** Resolves once the double has received `count` requests to transactions. */
	async function requestsArrived(count: number): Promise<void> {
		while (double().requestsTo('transactions').length < count) await new Promise((resolve) => setTimeout(resolve, 5));
	}

	it('withdraws the stopped execution’s order that has not left, and lets a request under way finish for every execution it carries', async () => {
		double().faults.delayMs = 300;
		const run = (number: number, stopWhen?: Promise<unknown>) =>
			runNode({ credentials: credentials(), parameters: jsonMode, items: [withOwnContact(number)], stopWhen }).catch((error: Error) => error);
		// Orders 0 and 1 take both places for the account's requests; the others wait for one.
		const busy = [run(0), run(1)];
		await requestsArrived(2);
		// Order 2's execution is stopped while it waits; order 3's once its request, shared with 4 and 5, is under way.
		const stopped = run(2, new Promise((resolve) => setTimeout(resolve, 50)));
		const carried = run(3, requestsArrived(3));
		const others = [run(4), run(5)];
		await Promise.all([...busy, stopped, carried, ...others]);

		expect(double().transactions.queuedOrderIds().sort()).toEqual(['A-0', 'A-1', 'A-3', 'A-4', 'A-5']);
		expect(double().requestsTo('transactions').map((request) => [request.status, request.answerLost ?? false])).toEqual([
			[200, false],
			[200, false],
			[200, false],
		]);
	});

	it('lets a request under way finish when its execution is stopped: its answer decides, so a keyed order is queued once and its key kept', async () => {
		double().faults.delayMs = 500;
		const parameters = { ...jsonMode, options: { deduplicationKey: '={{ $json.import.content["order.id"] }}' } };
		await runNode({ credentials: credentials(), parameters, items: [withOwnContact(0)], stopWhen: requestsArrived(1) }).catch((error: Error) => error);
		// The stopped execution's sending goes on in the background until its key is settled.
		while (!processedData.remembers('sent A-0')) await new Promise((resolve) => setTimeout(resolve, 20));

		expect(double().requestsTo('transactions').map((request) => [request.status, request.answerLost ?? false])).toEqual([[200, false]]);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
		const redelivered = await runNode({ credentials: credentials(), parameters, items: [withOwnContact(0)] });
		expect(redelivered.main[0]).toMatchObject({ skipped: true, deduplicationKey: 'A-0', message: 'Not sent again: this node already sent a transaction with this Deduplication Key' });
	});

	it('withdraws an order whose execution is stopped while the account is paused after a 429', async () => {
		double().faults.failNext(1, 429, { retryAfter: '2', match: 'transactions' });
		const waiting = runNode({ credentials: credentials(), parameters: jsonMode, items: [withOwnContact(0)], stopWhen: requestsArrived(1).then(async () => await new Promise((resolve) => setTimeout(resolve, 200))) });
		await waiting.catch((error: Error) => error);
		await new Promise((resolve) => setTimeout(resolve, 2_200));

		expect(double().requestsTo('transactions').map((request) => request.status)).toEqual([429]);
		expect(double().transactions.queuedOrderIds()).toEqual([]);
	});
});
