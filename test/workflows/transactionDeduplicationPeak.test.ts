import { setTimeout as sleep } from 'node:timers/promises';

import type { INodeType } from 'n8n-workflow';

import { useServiceDouble } from '../harness/double';
import { processedData } from '../harness/processedData';
import { jsonMode, order } from '../harness/transactions';
import type { NodeRunResult } from '../harness/workflow';
import { registerNodeType, runNode } from '../harness/workflow';

const keyed = { ...jsonMode, options: { deduplicationKey: '={{ $json.content["order.id"] }}' } };

/** The node as a second n8n process (a queue-mode worker) has it: its own copy of every module. */
const SECOND_PROCESS = 'test.mailingPlatformInAnotherProcess';
jest.isolateModules(() => {
	const { MailingPlatform } = jest.requireActual<{ MailingPlatform: new () => INodeType }>('../../nodes/MailingPlatform/MailingPlatform.node');
	registerNodeType(SECOND_PROCESS, new MailingPlatform());
});

describe('transaction › create with a Deduplication Key at peak load', () => {
	const { double, credentials } = useServiceDouble();

	/** One execution per delivery, all at once, as a webhook receives orders; `process` picks the n8n process of each. */
	async function deliver(orderNumbers: number[], process: (index: number) => string | undefined = () => undefined, spacingMs = 0) {
		const runs = await Promise.all(
			orderNumbers.map(async (number, index) => {
				await sleep(index * spacingMs);
				return await runNode({ credentials: credentials(), parameters: keyed, items: [order(number)], nodeType: process(index) });
			}),
		);
		expect(runs.map((run: NodeRunResult) => run.error?.message)).toEqual(orderNumbers.map(() => undefined));
		return runs;
	}

	/** How often each order was queued by the service. */
	const queuedCounts = () => {
		const counts = new Map<string, number>();
		for (const id of double().transactions.queuedOrderIds()) counts.set(String(id), (counts.get(String(id)) ?? 0) + 1);
		return counts;
	};
	const everyOnce = (count: number) => new Map(Array.from({ length: count }, (_, number) => [`A-${number}`, 1]));
	const range = (count: number) => Array.from({ length: count }, (_, number) => number);

	beforeEach(() => {
		// A database round trip takes time, so that executions at once overlap inside the store.
		processedData.latencyMs = 3;
	});

	it('sends each of 20 orders once when each is delivered twice at the same moment', async () => {
		const runs = await deliver([...range(20), ...range(20)]);

		expect(queuedCounts()).toEqual(everyOnce(20));
		expect(runs.filter((run) => run.main[0].skipped === true)).toHaveLength(20);
	});

	it('sends each of 50 orders once when all arrive at once and then each again, on a node’s first use', async () => {
		await deliver(range(50));
		await deliver(range(50));

		expect(queuedCounts()).toEqual(everyOnce(50));
	});

	it('sends every order once when the service refused some (503 beyond the retries, queued: false) and all arrive again', async () => {
		double().faults.unavailableRetryAfter = '0';
		for (const number of [1, 4, 7, 10, 13]) double().faults.unavailableForOrders.add(`A-${number}`);
		for (const number of [2, 5, 8, 11, 14]) double().faults.notQueuedOrders.add(`A-${number}`);
		const first = await Promise.all(range(30).map(async (number) => await runNode({ credentials: credentials(), parameters: keyed, items: [order(number)], onError: 'continueErrorOutput' })));
		expect(first.filter((run) => run.errorOutput.length > 0)).toHaveLength(10);

		double().faults.reset();
		await deliver(range(30));
		expect(queuedCounts()).toEqual(everyOnce(30));
	});

	it('sends an order whose second delivery arrives while its first is being refused: the second waits for the first’s outcome', async () => {
		// Every attempt of the first request is refused (503, beyond the node's retries); the fault is used up by then.
		double().faults.failNext(5, 503, { match: 'transactions', retryAfter: '0' });
		const runs = await Promise.all([0, 0].map(async (number) => await runNode({ credentials: credentials(), parameters: keyed, items: [order(number)], onError: 'continueErrorOutput' })));

		expect(queuedCounts()).toEqual(everyOnce(1));
		expect(runs.map((run) => (run.errorOutput.length > 0 ? 'refused' : run.main[0].queued))).toEqual(['refused', true]);
	});

	it('across two processes: their first uses of the store collide without failing an execution, and no released key comes back', async () => {
		for (const number of [0, 3, 6, 9]) double().faults.notQueuedOrders.add(`A-${number}`);
		const first = await Promise.all(
			range(30).map(async (number) => await runNode({ credentials: credentials(), parameters: keyed, items: [order(number)], nodeType: number % 2 === 0 ? SECOND_PROCESS : undefined })),
		);
		expect(first.map((run) => run.error?.message)).toEqual(range(30).map(() => undefined));
		expect(processedData.calls.filter((call) => call.operation === 'checkProcessedAndRecord').length).toBeGreaterThan(2);

		double().faults.reset();
		const again = await deliver([0, 3, 6, 9], (index) => (index % 2 === 0 ? undefined : SECOND_PROCESS));
		expect(again.map((run) => run.main[0].queued)).toEqual([true, true, true, true]);
	});

	it('across two processes: a key another process wrote over is recorded again after sending, so the order’s next delivery is skipped', async () => {
		// One every 2 ms, so that each process's writes interleave with the other's.
		await deliver(range(40), (index) => (index % 2 === 0 ? SECOND_PROCESS : undefined), 2);
		await deliver(range(40), (index) => (index % 2 === 0 ? undefined : SECOND_PROCESS));

		expect(queuedCounts()).toEqual(everyOnce(40));
	});
});
