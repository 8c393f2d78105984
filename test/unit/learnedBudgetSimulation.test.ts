/**
 * Processes sharing one account, each learning its pace alone, for 15 simulated minutes a case
 * (test/harness/sharedAccount.ts: the account's token bucket, burst = rate, answers in 30–90 ms,
 * the test's clock and chance). Each process may be refused at most 5% of what the account took
 * of it plus one (its first lesson), and most of the budget is used.
 */
import type { Phase, Sent } from '../harness/sharedAccount';
import { countsPerProcess, simulateAccount, usedShare } from '../harness/sharedAccount';

afterEach(() => jest.restoreAllMocks());

const MINUTES = 15;

/** Each process's refused requests, and the most that 5% of its accepted ones plus one allow. */
function refusalsAndBounds(sent: readonly Sent[]): Array<[number, number]> {
	return countsPerProcess(sent).map(({ accepted, refused }) => [refused, Math.floor(0.05 * accepted + 1)]);
}

function expectRefusalsWithinBounds(sent: readonly Sent[]): void {
	for (const [refused, bound] of refusalsAndBounds(sent)) expect(refused).toBeLessThanOrEqual(bound);
}

const run = (phases: Phase[], seconds = MINUTES * 60, seed = 1) => simulateAccount(phases, seconds, seed);

describe('processes sharing one account, each learning its pace alone', () => {
	it('finds a budget that grew from 5 to 40 a second within a minute: ≥ 80% of what the process sends with no budget at all', () => {
		// One process, at most two requests under way, sends about 21 a second when nothing holds it back.
		const unbounded = usedShare(run([{ fromSecond: 0, rate: 10_000, processes: 1 }], 60), 1, 0, 60);
		const sent = run([
			{ fromSecond: 0, rate: 5, processes: 1 },
			{ fromSecond: 300, rate: 40, processes: 1 },
		]);

		expect(usedShare(sent, 1, 360, 420)).toBeGreaterThanOrEqual(0.8 * unbounded);
		expectRefusalsWithinBounds(sent);
	});

	// Which process is left, and how small its share was, depends on chance: four draws of it.
	it.each([1, 2, 3, 4])('lets the one process left of four use ≥ 80% of the budget within a minute of the others stopping (seed %i)', (seed) => {
		const sent = run(
			[
				{ fromSecond: 0, rate: 8, processes: 4 },
				{ fromSecond: 300, rate: 8, processes: 1 },
			],
			MINUTES * 60,
			seed,
		);

		expect(usedShare(sent, 8, 360, 420)).toBeGreaterThanOrEqual(0.8);
		expectRefusalsWithinBounds(sent);
	});

	it('does not slow a process coming back after an idle hour: ≥ 80% of the budget in the first minute, refused at most once more than in the next', () => {
		const sent = run(
			[
				{ fromSecond: 0, rate: 8, processes: 4 },
				{ fromSecond: 300, rate: 8, processes: 0 },
				{ fromSecond: 3900, rate: 8, processes: 1 },
			],
			3900 + 300,
		);
		const [firstMinute] = countsPerProcess(sent, 3900, 3960);
		const [nextMinute] = countsPerProcess(sent, 3960, 4020);

		expect(usedShare(sent, 8, 3900, 3960)).toBeGreaterThanOrEqual(0.8);
		expect(firstMinute.refused).toBeLessThanOrEqual(nextMinute.refused + 1);
	});

	it('follows a budget that falls from 10 to 3 a second with two processes', () => {
		const sent = run([
			{ fromSecond: 0, rate: 10, processes: 2 },
			{ fromSecond: 300, rate: 3, processes: 2 },
		]);

		expect(usedShare(sent, 3, 360, MINUTES * 60)).toBeGreaterThanOrEqual(0.8);
		expectRefusalsWithinBounds(sent);
	});

	const accounts = [
		{ rate: 2, processes: 1 },
		{ rate: 2, processes: 2 },
		{ rate: 4, processes: 1 },
		{ rate: 4, processes: 2 },
		{ rate: 4, processes: 4 },
		{ rate: 10, processes: 1 },
		{ rate: 10, processes: 2 },
		{ rate: 10, processes: 4 },
	];

	it.each(accounts)('$processes process(es) on $rate a second: each refused ≤ 5% of its accepted + 1, ≥ 80% of the budget used', ({ rate, processes }) => {
		const sent = run([{ fromSecond: 0, rate, processes }]);

		expectRefusalsWithinBounds(sent);
		expect(usedShare(sent, rate, 0, MINUTES * 60)).toBeGreaterThanOrEqual(0.8);
	});

	it('one process on 1 a second (a burst of one): refused ≤ 5% of its accepted + 1, ≥ 80% of the budget used', () => {
		const sent = run([{ fromSecond: 0, rate: 1, processes: 1 }]);

		expectRefusalsWithinBounds(sent);
		expect(usedShare(sent, 1, 0, MINUTES * 60)).toBeGreaterThanOrEqual(0.8);
	});
});
