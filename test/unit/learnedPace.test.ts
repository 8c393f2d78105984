/**
 * The account's gate learning the account's pace from the service's answers, on a clock the
 * test moves (`monotonicMs` reads `performance.now`) and with chance fixed.
 */
import { AccountGate, PROBE_BYTES } from '../../nodes/MailingPlatform/transport/accountGate';

const REFUSED = 'the service answered 429 (too many requests)';

let nowMs = 0;

beforeEach(() => {
	nowMs = 10_000;
	jest.spyOn(performance, 'now').mockImplementation(() => nowMs);
	jest.spyOn(Math, 'random').mockReturnValue(0);
});
afterEach(() => jest.restoreAllMocks());

/** A request through the gate, answered with `status` after `latencyMs`. */
function request(gate: AccountGate, status = 200, latencyMs = 10, headers: Record<string, string> = {}): void {
	expect(gate.waitMs()).toBe(0);
	gate.takeStart();
	const sentAtMs = nowMs;
	nowMs += latencyMs;
	gate.answered(sentAtMs, status, headers);
	if (status === 429 || status === 503) gate.pause(1000, REFUSED);
}

/** Waits on the test's clock until the gate lets a request start. */
const waitForTurn = (gate: AccountGate) => (nowMs += gate.waitMs());

/** The pace now in force, in requests per second, read from the interval after a start. */
function paceOf(gate: AccountGate): number {
	waitForTurn(gate);
	gate.takeStart();
	return 1000 / gate.waitMs();
}

/** After a refusal, waits out the pause and sends a probe the account takes: the first refusal's lesson is drawn then. */
function probeAccepted(gate: AccountGate): void {
	waitForTurn(gate);
	request(gate);
}

/**
 * A gate that learned from four requests taken in the 40 ms before the fifth was refused: the
 * account keeps at least 4 / (1 s of burst + 0.04 s) per second, and the pace is 0.7 of that.
 */
function taughtGate(): AccountGate {
	const gate = new AccountGate();
	for (let taken = 0; taken < 4; taken++) request(gate);
	request(gate, 429);
	probeAccepted(gate);
	return gate;
}

const TAUGHT = (0.7 * 4) / 1.04;

describe('the account’s gate learning the account’s pace', () => {
	it('paces nothing before the service refuses a request: a lone process is never slowed', () => {
		const gate = new AccountGate();
		for (let sent = 0; sent < 50; sent++) request(gate, sent % 7 === 0 ? 400 : 200, 1);

		expect([gate.waitMs(), gate.whyWaiting(), gate.largestBodyToRisk()]).toEqual([0, '', Number.POSITIVE_INFINITY]);
	});

	it('once the account takes a request sent after a refusal, paces at 0.7 of the rate it showed it keeps before the refusal, and says so', () => {
		const gate = new AccountGate();
		for (let taken = 0; taken < 4; taken++) request(gate);
		request(gate, 429);
		expect(gate.whyWaiting()).toBe(REFUSED);
		waitForTurn(gate);
		expect(gate.requestsToRisk()).toBe(1);
		request(gate);

		expect(gate.requestsToRisk()).toBe(Number.POSITIVE_INFINITY);
		expect(paceOf(gate)).toBeCloseTo(TAUGHT);
		expect(gate.whyWaiting()).toBe("the pace the service's refusals taught (2.7 requests per second)");
	});

	it('draws the first lesson when the answers of requests under way at the refusal are in: a refusal often comes back before them', () => {
		const gate = new AccountGate();
		const underWay = [0, 1, 2, 3].map(() => {
			gate.takeStart();
			nowMs += 10;
			return nowMs - 10;
		});
		request(gate, 429, 0);
		for (const sentAtMs of underWay) gate.answered(sentAtMs, 200, {});
		probeAccepted(gate);

		expect(paceOf(gate)).toBeCloseTo(TAUGHT);
	});

	it('takes the burst out of what it learns, and looks back 1 s only: a sender just above the account’s rate learns under the rate, not its own', () => {
		const gate = new AccountGate();
		// Five a second for four seconds into an account of 4 per second, burst 4: its burst empties as the fifth second starts.
		for (let taken = 0; taken < 20; taken++) request(gate, 200, 200);
		request(gate, 429);
		probeAccepted(gate);

		// The 5 taken in the second before the refusal, less a second's burst.
		expect(paceOf(gate)).toBeCloseTo((0.7 * 5) / 2);
	});

	it('learns from the probe alone when the account took nothing of this process in the second before: others keep it busy', () => {
		const gate = new AccountGate();
		request(gate);
		nowMs += 5_000;
		request(gate, 429);
		waitForTurn(gate);
		expect(gate.waitMs()).toBe(0);
		nowMs += 500;
		request(gate);

		// One request taken in the 1.01 s from the refused request's start to the pause's end; the probe came 0.5 s later.
		expect(paceOf(gate)).toBeCloseTo(0.7 / 1.01, 4);
	});

	it('learns nothing from the time no request waited: a probe a minute after its pause learns what one at the pause’s end would', () => {
		const gate = new AccountGate();
		request(gate);
		nowMs += 5_000;
		request(gate, 429);
		waitForTurn(gate);
		// The executions that waited were cancelled (n8n's timeout); a retry sends the next request a minute later.
		nowMs += 60_000;
		request(gate);

		expect(paceOf(gate)).toBeCloseTo(0.7 / 1.01, 4);
	});

	it('learns from a 503 that says when to come back, not from one that does not: that is an outage', () => {
		const outage = new AccountGate();
		for (let taken = 0; taken < 4; taken++) request(outage);
		request(outage, 503);
		expect(outage.largestBodyToRisk()).toBe(PROBE_BYTES);
		waitForTurn(outage);
		outage.takeStart();
		expect(outage.waitMs()).toBe(0);

		const busy = new AccountGate();
		for (let taken = 0; taken < 4; taken++) request(busy);
		request(busy, 503, 10, { 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' });
		probeAccepted(busy);
		expect(paceOf(busy)).toBeCloseTo(TAUGHT);
	});

	it('lowers the pace again only after the account took a request sent since the last refusal', () => {
		const gate = taughtGate();
		waitForTurn(gate);
		request(gate, 429);
		// Probes after the pause, refused while nothing was taken: the pace stays.
		for (let probe = 0; probe < 3; probe++) {
			waitForTurn(gate);
			request(gate, 429);
		}
		expect(paceOf(gate)).toBeCloseTo(0.7 * TAUGHT);
		gate.answered(nowMs, 200, {});
		waitForTurn(gate);
		request(gate, 429);

		expect(paceOf(gate)).toBeCloseTo(0.7 * 0.7 * TAUGHT);
	});

	it('does not lower it for a request sent before the last refusal, refused after it: that one left at the old pace', () => {
		const gate = taughtGate();
		waitForTurn(gate);
		request(gate);
		waitForTurn(gate);
		gate.takeStart();
		const underWay = nowMs;
		waitForTurn(gate);
		request(gate, 429);
		waitForTurn(gate);
		request(gate);
		gate.answered(underWay, 429, {});

		expect(paceOf(gate)).toBeCloseTo(0.7 * TAUGHT);
	});

	it('raises it by 0.002 a second for every accepted request the pace held back, not for those that came later than it allowed', () => {
		const gate = taughtGate();
		waitForTurn(gate);
		for (let held = 0; held < 10; held++) {
			request(gate);
			waitForTurn(gate);
		}
		expect(paceOf(gate)).toBeCloseTo(2.7123, 4);
		for (let late = 0; late < 10; late++) {
			nowMs += 5_000;
			request(gate);
		}

		expect(paceOf(gate)).toBeCloseTo(2.7123, 4);
	});

	it('forgets a pace that neither held a request back nor met a refusal for two minutes: it says nothing of the account now', () => {
		const kept = taughtGate();
		nowMs += 119_000;
		expect(paceOf(kept)).toBeCloseTo(TAUGHT);

		const forgotten = taughtGate();
		nowMs += 121_000;
		waitForTurn(forgotten);
		forgotten.takeStart();
		expect(forgotten.waitMs()).toBe(0);
	});

	it('keeps the credential’s Max Requests per Second as an upper bound: the smaller of the two paces', () => {
		const gate = taughtGate();
		const leaveSlow = gate.enter({ maxRequestsPerSecond: 1 });
		expect(paceOf(gate)).toBeCloseTo(1);
		expect(gate.whyWaiting()).toBe("the credential's Max Requests per Second (1)");
		leaveSlow();
		gate.enter({ maxRequestsPerSecond: 5 });

		expect(paceOf(gate)).toBeCloseTo(TAUGHT);
	});

	it('comes back from a pause at a random point within one pacing interval, so that processes refused together spread out', () => {
		const gate = taughtGate();
		(Math.random as jest.Mock).mockReturnValue(0.5);
		waitForTurn(gate);
		request(gate, 429, 0);

		// The refusal lowered the pace first: the interval is the new pace's.
		expect(gate.waitMs()).toBeCloseTo(1000 + 0.5 * (1000 / (0.7 * TAUGHT)));
		expect(gate.whyWaiting()).toBe(REFUSED);
	});

	it(`risks at most ${PROBE_BYTES} bytes after a refusal, until the account takes a request sent since`, () => {
		const gate = new AccountGate();
		gate.takeStart();
		const underWay = nowMs;
		nowMs += 5;
		request(gate, 429);
		expect(gate.largestBodyToRisk()).toBe(PROBE_BYTES);
		gate.answered(underWay, 200, {});
		expect(gate.largestBodyToRisk()).toBe(PROBE_BYTES);
		waitForTurn(gate);
		request(gate);

		expect(gate.largestBodyToRisk()).toBe(Number.POSITIVE_INFINITY);
	});
});

describe('the account’s gate and the service’s rate limit headers', () => {
	it('waits until the reset where the service says no request is left, at most 30 s', () => {
		const gate = new AccountGate();
		request(gate, 200, 0, { ratelimit: 'limit=10, remaining=0, reset=3' });
		expect(gate.waitMs()).toBe(3000);
		expect(gate.whyWaiting()).toBe('the service said the account had no requests left (rate limit headers)');
		nowMs += 3000;
		request(gate, 200, 0, { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '3600' });

		expect(gate.waitMs()).toBe(30_000);
	});

	it('never learns a pace above the rate the service declares', () => {
		const gate = new AccountGate();
		request(gate, 200, 10, { 'ratelimit-policy': '2;w=1' });
		for (let taken = 0; taken < 9; taken++) request(gate);
		request(gate, 429);
		probeAccepted(gate);

		expect(paceOf(gate)).toBeCloseTo(2);
	});
});
