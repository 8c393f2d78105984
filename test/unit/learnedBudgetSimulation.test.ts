/**
 * Processes that share one account and know nothing of each other (queue-mode workers, two n8n
 * installations on one key), each with its own gate, sending as fast as their gates allow against
 * the account's token bucket (test/double/budget.ts: `rate` per second, burst `rate`, 429 with
 * `Retry-After: 1` beyond). Each process behaves as the account's sender and the transport do:
 * at most two requests under way, the second once the first has taken 0.2 s, and only one while a
 * refusal is the gate's latest news; every answer goes to the gate, a refusal pauses it. The clock
 * and chance are the test's, so a run is the same on any machine.
 */
import { RequestBudget } from '../double/budget';
import { AccountGate } from '../../nodes/MailingPlatform/transport/accountGate';
import { retryDelayMs } from '../../nodes/MailingPlatform/transport/retry';

const SECOND_REQUEST_AFTER_MS = 200;

/** A seeded generator for `Math.random`: the gates' spread after a pause, the answers' latency. */
function seeded(seed: number): () => number {
	let state = seed >>> 0;
	return () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
}

interface Answer {
	atMs: number;
	process: number;
	sentAtMs: number;
	status: number;
	headers: Record<string, string>;
}

/** Runs `processes` gates for `seconds` against an account of `rate` requests per second; the account's counts. */
function simulate(rate: number, processes: number, seconds: number, seed = 1) {
	let nowMs = 0;
	const chance = seeded(seed);
	jest.spyOn(performance, 'now').mockImplementation(() => nowMs);
	jest.spyOn(Math, 'random').mockImplementation(chance);
	const budget = new RequestBudget({ rate, burst: rate }, () => nowMs);
	const gates = Array.from({ length: processes }, () => new AccountGate());
	const underWay = gates.map((): number[] => []);
	const latencyMs = gates.map(() => 30 + Math.floor(chance() * 40));
	let answers: Answer[] = [];

	for (; nowMs < seconds * 1000; nowMs++) {
		const due = answers.filter((answer) => answer.atMs <= nowMs);
		answers = answers.filter((answer) => answer.atMs > nowMs);
		for (const { process, sentAtMs, status, headers } of due) {
			underWay[process].splice(underWay[process].indexOf(sentAtMs), 1);
			gates[process].answered(sentAtMs, status, headers);
			if (status === 429) gates[process].pause(retryDelayMs(0, headers['retry-after']), 'the service answered 429 (too many requests)');
		}
		for (let turn = 0; turn < processes; turn++) {
			const process = (turn + nowMs) % processes;
			const [first] = underWay[process];
			const placeFree =
				underWay[process].length === 0 || (underWay[process].length === 1 && gates[process].requestsToRisk() > 1 && nowMs - first >= SECOND_REQUEST_AFTER_MS);
			if (!placeFree || gates[process].waitMs() > 0) continue;
			gates[process].takeStart();
			underWay[process].push(nowMs);
			const refusal = budget.take();
			const headers = Object.fromEntries(Object.entries(refusal?.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
			answers.push({ atMs: nowMs + latencyMs[process] + Math.floor(chance() * 20), process, sentAtMs: nowMs, status: refusal?.status ?? 200, headers });
		}
	}
	return { accepted: budget.accepted, refused: budget.refused, share: budget.accepted / (rate * seconds) };
}

describe('processes sharing one account, each learning its pace alone', () => {
	afterEach(() => jest.restoreAllMocks());

	const accounts = [2, 4, 10].flatMap((rate) => [1, 2, 4].map((processes) => ({ rate, processes }))).filter(({ rate, processes }) => processes <= rate);

	// Ten minutes: a first lesson starts at 0.7 of what the account keeps, and the pace regains the rest in some minutes.
	it.each(accounts)('$processes processes, an account of $rate per second: refused ≤ 5% of accepted + one per process, and ≥ 80% of the budget used in 10 minutes', ({ rate, processes }) => {
		const { accepted, refused, share } = simulate(rate, processes, 600);

		expect(refused).toBeLessThanOrEqual(0.05 * accepted + processes);
		expect(share).toBeGreaterThanOrEqual(0.8);
	});

	it('with more processes than the account’s burst, keeps refusals near 5% and uses about half the budget: independent starts coincide', () => {
		// 4 processes on a burst of 2: three starts within 0.5 s exceed the bucket even at 60% of the budget.
		const { accepted, refused, share } = simulate(2, 4, 600);

		expect(refused).toBeLessThanOrEqual(0.07 * accepted + 4);
		expect(share).toBeGreaterThanOrEqual(0.45);
	});
});
