import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';

import type { Delivery } from '../harness/deliveries';
import { deliverAtOnce, everyOnce, outcomes, queuedCounts, range } from '../harness/deliveries';
import { useServiceDouble } from '../harness/double';
import { registerSecondProcess } from '../harness/processes';
import { storeCallsEnded } from '../harness/storeCallsOfProcesses';
import type { StoreDatabase } from '../harness/processedData';
import { processedData } from '../harness/processedData';

/**
 * Two n8n processes (queue-mode workers) sharing n8n's store, in one jest process: the second
 * is the node with its own copy of every module. The store is the MODEL of n8n's
 * (test/harness/processedData.ts), arranged so that the processes' calls meet at chosen moments;
 * its collision errors are the real databases' texts. A key's confirmation rounds go on after the
 * execution, so a delivery again waits for them to end (a fixed wait failed on a starved CPU).
 * The real proof, two workers of a real n8n on Postgres with the node's measured limits, is
 * `npm run test:queue`.
 */
const SECOND_PROCESS = 'test.mailingPlatformInAnotherProcess';
registerSecondProcess(SECOND_PROCESS);

/** Even deliveries reach the first process, odd ones the second (or the other way round). */
const alternating = (secondFirst = false) => (index: number): Delivery => ({ process: (index % 2 === 0) === secondFirst ? SECOND_PROCESS : undefined });

describe('transaction › create with a Deduplication Key in two n8n processes (model of n8n’s store)', () => {
	const { double, credentials } = useServiceDouble();

	it.each<StoreDatabase>(['postgres', 'sqlite'])(
		'their first calls collide on inserting the history (%s’s error): tried again, no execution fails, every order is sent once',
		async (database) => {
			processedData.database = database;
			processedData.nextCallsMeet();
			for (const number of [0, 3, 6, 9]) double().faults.notQueuedOrders.add(`A-${number}`);
			const first = await deliverAtOnce(credentials(), range(30), alternating());

			expect(processedData.refusedInserts).toBe(1);
			const refused = new Set([0, 3, 6, 9]);
			expect(outcomes(first)).toEqual(range(30).map((number) => (refused.has(number) ? 'not queued' : 'queued')));

			double().faults.reset();
			await storeCallsEnded();
			const again = await deliverAtOnce(credentials(), [0, 3, 6, 9], alternating(true));
			expect(outcomes(again)).toEqual(['queued', 'queued', 'queued', 'queued']);
			await storeCallsEnded();
			const third = await deliverAtOnce(credentials(), range(30), alternating(true));
			expect(outcomes(third)).toEqual(range(30).map(() => 'skipped'));
			expect(queuedCounts(double())).toEqual(everyOnce(30));
		},
	);

	it('a key the other process wrote over is recorded again after sending, so the order’s next delivery is skipped', async () => {
		// The history exists, and the two processes' first calls read it before either writes:
		// the second process's write undoes the first's key for order A-0.
		processedData.seed(['key an earlier order']);
		processedData.nextCallsMeet();
		await deliverAtOnce(credentials(), [0, 1], alternating());
		expect(processedData.overwrites).toBeGreaterThanOrEqual(1);

		await storeCallsEnded();
		const again = await deliverAtOnce(credentials(), [0, 1], alternating(true));
		expect(outcomes(again)).toEqual(['skipped', 'skipped']);
		expect(queuedCounts(double())).toEqual(everyOnce(2));
	});

	it('sends each of 40 orders once when they alternate between the processes, 2 ms apart, and each arrives again at the other', async () => {
		processedData.latencyMs = 3;
		const spaced = range(40).map(async (number) => {
			await new Promise((resolve) => setTimeout(resolve, number * 2));
			return (await deliverAtOnce(credentials(), [number], () => alternating()(number)))[0];
		});
		expect(outcomes(await Promise.all(spaced))).toEqual(range(40).map(() => 'queued'));
		await storeCallsEnded();
		const again = await deliverAtOnce(credentials(), range(40), alternating(true));

		expect(outcomes(again)).toEqual(range(40).map(() => 'skipped'));
		expect(queuedCounts(double())).toEqual(everyOnce(40));
	});

	it('sends again an order delivered to the other process at once after its execution, before the first round found its undone key, and says so in n8n’s log', async () => {
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
		processedData.seed(['key an earlier order']);
		processedData.nextCallsMeet();
		await deliverAtOnce(credentials(), [0, 1], alternating());
		const again = await deliverAtOnce(credentials(), [0, 1], alternating(true));

		// The documented limit of the key across workers: this test shows it, not a promise.
		expect(outcomes(again).filter((outcome) => outcome === 'queued')).toHaveLength(1);
		await storeCallsEnded();
		expect(warn.mock.calls.map(([message]) => String(message)).join('\n')).toMatch(/Deduplication Key "A-[01]": another n8n process's write removed it/);
		warn.mockRestore();
	});
});
