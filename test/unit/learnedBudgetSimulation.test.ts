/**
 * Processes sharing one account, each learning its pace alone, for 15 simulated minutes a case
 * (test/harness/sharedAccount.ts: the account's token bucket, burst = rate, answers in 30–90 ms,
 * the test's clock and chance). Each process may be refused at most 5% of what the account took
 * of it plus one (its first lesson). Issue 49's cases: where the pace meets its goal the test
 * holds the goal; where it does not yet (a budget that grew, the one process left of four, an
 * idle hour), it holds today's figure, and docs/development.md (The Learned Pace's Simulation)
 * says what is missing and why.
 */
import type { Phase, Sent } from '../harness/sharedAccount';
import { countsPerProcess, simulateAccount, usedShare } from '../harness/sharedAccount';

afterEach(() => jest.restoreAllMocks());

const MINUTES = 15;

const run = (phases: Phase[], seconds = MINUTES * 60, seed = 1) => simulateAccount(phases, seconds, seed);

/** The processes refused more than 5% of what the account took of them plus one. */
function overTheirBound(sent: readonly Sent[]): Array<{ accepted: number; refused: number }> {
	return countsPerProcess(sent).filter(({ accepted, refused }) => refused > Math.floor(0.05 * accepted + 1));
}

describe('processes sharing one account, each learning its pace alone', () => {
	it('regains a budget that grew from 5 to 40 a second slowly: 12% of it in the second minute after (goal: 80% of what the process can send, 51%)', () => {
		const sent = run([
			{ fromSecond: 0, rate: 5, processes: 1 },
			{ fromSecond: 300, rate: 40, processes: 1 },
		]);

		expect(usedShare(sent, 40, 360, 420)).toBeGreaterThanOrEqual(0.1);
		expect(overTheirBound(sent)).toEqual([]);
	});

	it('lets the one process left of four use 17% to 45% of the budget in the second minute after the others stopped (goal: 80%)', () => {
		// Which process is left, and how small its share was, is chance: 16 draws of it.
		for (let seed = 1; seed <= 16; seed++) {
			const sent = run(
				[
					{ fromSecond: 0, rate: 8, processes: 4 },
					{ fromSecond: 300, rate: 8, processes: 1 },
				],
				MINUTES * 60,
				seed,
			);

			expect(usedShare(sent, 8, 360, 420)).toBeGreaterThanOrEqual(0.15);
			expect(overTheirBound(sent)).toEqual([]);
		}
	});

	it('forgets a pace after an idle hour: 71% of the budget in the first minute back, refused at most once more than in the next (goal: 80%)', () => {
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

		expect(usedShare(sent, 8, 3900, 3960)).toBeGreaterThanOrEqual(0.7);
		expect(firstMinute.refused).toBeLessThanOrEqual(nextMinute.refused + 1);
	});

	it('follows a budget that falls from 10 to 3 a second with two processes', () => {
		const sent = run([
			{ fromSecond: 0, rate: 10, processes: 2 },
			{ fromSecond: 300, rate: 3, processes: 2 },
		]);

		expect(usedShare(sent, 3, 360, MINUTES * 60)).toBeGreaterThanOrEqual(0.8);
		expect(overTheirBound(sent)).toEqual([]);
	});

	// Where the bucket has room to keep the processes' starts apart (N ≤ R: a burst of R holds one start of each), and 20 on 10.
	const roomy = [
		{ rate: 1, processes: 1 },
		{ rate: 2, processes: 1 },
		{ rate: 2, processes: 2 },
		{ rate: 4, processes: 1 },
		{ rate: 4, processes: 2 },
		{ rate: 4, processes: 4 },
		{ rate: 10, processes: 1 },
		{ rate: 10, processes: 2 },
		{ rate: 10, processes: 4 },
		{ rate: 10, processes: 10 },
		{ rate: 10, processes: 20 },
	];

	it.each(roomy)('$processes process(es) on $rate a second: each refused ≤ 5% of its accepted + 1, ≥ 80% of the budget used', ({ rate, processes }) => {
		const sent = run([{ fromSecond: 0, rate, processes }]);

		expect(overTheirBound(sent)).toEqual([]);
		expect(usedShare(sent, rate, 0, MINUTES * 60)).toBeGreaterThanOrEqual(0.8);
	});
});
