/**
 * Processes that share one account and know nothing of each other (queue-mode workers, two n8n
 * installations on one key), each with its own gate, sending as fast as their gates allow against
 * the account's token bucket (test/double/budget.ts: `rate` per second, burst `rate`, 429 with
 * `Retry-After: 1` beyond). Each process behaves as the account's sender and the transport do:
 * at most two requests under way, the second once the first has taken 0.2 s, and only one while a
 * refusal is the gate's latest news; every answer goes to the gate, a refusal pauses it. Answers
 * take 30 to 90 ms. The account's budget and the processes sending change by phases. The clock
 * and chance are the test's (jest's mocks of `performance.now` and `Math.random`), so a run is the
 * same on any machine, and it moves from one event to the next, so that hours take no time.
 */
import { RequestBudget } from '../double/budget';
import { AccountGate } from '../../nodes/MailingPlatform/transport/accountGate';
import { retryDelayMs } from '../../nodes/MailingPlatform/transport/retry';

const SECOND_REQUEST_AFTER_MS = 200;

/** From `fromSecond` on, the account takes `rate` requests per second and processes 0 to `processes` − 1 send. */
export interface Phase {
	fromSecond: number;
	rate: number;
	processes: number;
}

/** A request the account answered: when it left, whose it was, whether the account took it. */
export interface Sent {
	atMs: number;
	process: number;
	accepted: boolean;
}

interface Answer {
	atMs: number;
	process: number;
	sentAtMs: number;
	status: number;
	headers: Record<string, string>;
}

/** A seeded generator for `Math.random`: the gates' spread after a pause, the answers' latency. */
function seeded(seed: number): () => number {
	let state = seed >>> 0;
	return () => (state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0) / 2 ** 32;
}

/** Runs the phases until `seconds`; every request the account answered. Restore jest's mocks after. */
export function simulateAccount(phases: readonly Phase[], seconds: number, seed = 1): Sent[] {
	let nowMs = 0;
	const chance = seeded(seed);
	jest.spyOn(performance, 'now').mockImplementation(() => nowMs);
	jest.spyOn(Math, 'random').mockImplementation(chance);
	const processes = Math.max(...phases.map((phase) => phase.processes));
	const gates = Array.from({ length: processes }, () => new AccountGate());
	const underWay = gates.map((): number[] => []);
	const latencyMs = gates.map(() => 30 + Math.floor(chance() * 40));
	const sent: Sent[] = [];
	let answers: Answer[] = [];
	let phase = phases[0];
	let budget = new RequestBudget({ rate: phase.rate, burst: phase.rate }, () => nowMs);

	while (nowMs < seconds * 1000) {
		const next = phases.find((later) => later.fromSecond * 1000 <= nowMs && later.fromSecond > phase.fromSecond);
		if (next !== undefined) {
			if (next.rate !== phase.rate) budget = new RequestBudget({ rate: next.rate, burst: next.rate }, () => nowMs);
			phase = next;
		}
		const due = answers.filter((answer) => answer.atMs <= nowMs).sort((a, b) => a.atMs - b.atMs);
		answers = answers.filter((answer) => answer.atMs > nowMs);
		for (const { process, sentAtMs, status, headers } of due) {
			underWay[process].splice(underWay[process].indexOf(sentAtMs), 1);
			gates[process].answered(sentAtMs, status, headers);
			if (status === 429) gates[process].pause(retryDelayMs(0, headers['retry-after']), 'the service answered 429 (too many requests)');
		}
		let wakeMs = Math.min(seconds * 1000, ...answers.map((answer) => answer.atMs), ...phases.map((later) => later.fromSecond * 1000).filter((atMs) => atMs > nowMs));
		for (let turn = 0; turn < phase.processes; turn++) {
			const process = (turn + nowMs) % phase.processes;
			const gate = gates[process];
			const [first] = underWay[process];
			if (underWay[process].length >= Math.min(2, gate.requestsToRisk())) continue;
			const placeFreeAtMs = underWay[process].length === 0 ? nowMs : first + SECOND_REQUEST_AFTER_MS;
			const startAtMs = Math.max(placeFreeAtMs, nowMs + gate.waitMs());
			if (startAtMs > nowMs) {
				wakeMs = Math.min(wakeMs, startAtMs);
				continue;
			}
			gate.takeStart();
			underWay[process].push(nowMs);
			const refusal = budget.take();
			sent.push({ atMs: nowMs, process, accepted: refusal === undefined });
			const headers = Object.fromEntries(Object.entries(refusal?.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
			const answerAtMs = nowMs + latencyMs[process] + Math.floor(chance() * 20);
			answers.push({ atMs: answerAtMs, process, sentAtMs: nowMs, status: refusal?.status ?? 200, headers });
			wakeMs = Math.min(wakeMs, answerAtMs, nowMs + SECOND_REQUEST_AFTER_MS);
		}
		nowMs = Math.max(nowMs + 1, Math.ceil(wakeMs));
	}
	return sent;
}

/** The share of `rate` × the span that the account took from `fromSecond` to `toSecond`. */
export function usedShare(sent: readonly Sent[], rate: number, fromSecond: number, toSecond: number): number {
	const accepted = sent.filter(({ atMs, accepted }) => accepted && atMs >= fromSecond * 1000 && atMs < toSecond * 1000).length;
	return accepted / (rate * (toSecond - fromSecond));
}

/** Each process's accepted and refused requests from `fromSecond` to `toSecond`. */
export function countsPerProcess(sent: readonly Sent[], fromSecond = 0, toSecond = Number.POSITIVE_INFINITY): Array<{ accepted: number; refused: number }> {
	const counts: Array<{ accepted: number; refused: number }> = [];
	for (const { atMs, process, accepted } of sent) {
		if (atMs < fromSecond * 1000 || atMs >= toSecond * 1000) continue;
		counts[process] ??= { accepted: 0, refused: 0 };
		counts[process][accepted ? 'accepted' : 'refused']++;
	}
	return Array.from(counts, (count) => count ?? { accepted: 0, refused: 0 });
}
