import { deliverAtOnce, everyOnce, outcomes, queuedCounts, range } from '../harness/deliveries';
import { useServiceDouble } from '../harness/double';
import { processedData } from '../harness/processedData';

/**
 * Orders arriving together at one n8n process (regular mode), in-process against the model of
 * n8n's store (test/harness/processedData.ts): it reads and writes the history row with no lock,
 * as n8n's store does. The real store under the same deliveries: `npm run test:peak` (n8n with
 * SQLite); across two workers: transactionDeduplicationTwoProcesses.test.ts and `npm run test:queue`.
 */
describe('transaction › create with a Deduplication Key at peak load in one n8n process (model of n8n’s store)', () => {
	const { double, credentials } = useServiceDouble();

	beforeEach(() => {
		// A database round trip takes time, so that executions at once overlap inside the store.
		processedData.latencyMs = 3;
	});

	afterEach(() => {
		// One process lets no store call undo another's change (each waits its turn).
		expect(processedData.overwrites).toBe(0);
	});

	it('sends each of 20 orders once when each is delivered twice at the same moment', async () => {
		const runs = await deliverAtOnce(credentials(), [...range(20), ...range(20)]);

		expect(queuedCounts(double())).toEqual(everyOnce(20));
		expect(outcomes(runs).filter((outcome) => outcome === 'skipped')).toHaveLength(20);
		expect(outcomes(runs).filter((outcome) => outcome === 'queued')).toHaveLength(20);
	});

	it('sends each of 50 orders once when all arrive at once and then each again, on a node’s first use', async () => {
		const first = await deliverAtOnce(credentials(), range(50));
		const again = await deliverAtOnce(credentials(), range(50));

		expect(queuedCounts(double())).toEqual(everyOnce(50));
		expect(outcomes(first)).toEqual(range(50).map(() => 'queued'));
		expect(outcomes(again)).toEqual(range(50).map(() => 'skipped'));
	});

	it('sends every order once when the service did not queue some (queued: false) and all arrive again', async () => {
		for (const number of [1, 4, 7, 10, 13, 2, 5, 8, 11, 14]) double().faults.notQueuedOrders.add(`A-${number}`);
		const first = await deliverAtOnce(credentials(), range(30), () => ({ onError: 'continueErrorOutput' }));
		expect(outcomes(first).filter((outcome) => outcome === 'refused')).toHaveLength(10);

		double().faults.reset();
		const again = await deliverAtOnce(credentials(), range(30));
		expect(queuedCounts(double())).toEqual(everyOnce(30));
		const refusedFirst = new Set([1, 4, 7, 10, 13, 2, 5, 8, 11, 14]);
		expect(outcomes(again)).toEqual(range(30).map((number) => (refusedFirst.has(number) ? 'queued' : 'skipped')));
	});

	it('sends an order whose second delivery arrives while its first is being refused: the second waits for the first’s outcome', async () => {
		// The first request is refused (503) with a pause longer than the first delivery's Max Wait Seconds.
		double().faults.failNext(1, 503, { match: 'transactions', retryAfter: '2' });
		const runs = await deliverAtOnce(credentials(), [0, 0], (index) => ({ onError: 'continueErrorOutput', maxWaitSeconds: index === 0 ? 1 : 10 }));

		expect(queuedCounts(double())).toEqual(everyOnce(1));
		expect(outcomes(runs)).toEqual(['refused', 'queued']);
	});
});
