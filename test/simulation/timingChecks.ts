/**
 * The checks of time in a simulated case: an execution waits no longer than Max Wait Seconds and
 * gives up no sooner, and after a refusal a process keeps the pause asked and risks one small
 * request at a time.
 */
import { PROBE_BYTES } from '../../nodes/MailingPlatform/transport/accountGate';
import type { RequestRecord } from './model';
import { isRefusal, pauseAskedMs } from './model';
import type { Execution, World } from './world';

/** An execution's time waiting for the account: from its start to its end, less the time a request carrying its transactions was under way. */
export function maxWaitProblems(world: World, execution: Execution, where: string): string[] {
	const ownRequests = world.record.requests.filter((request) => request.carried.some((carried) => carried.delivery === execution.index));
	let underWayMs = 0;
	let coveredUntil = Number.NEGATIVE_INFINITY;
	for (const request of [...ownRequests].sort((a, b) => a.sentAtMs - b.sentAtMs)) {
		const end = request.answeredAtMs ?? request.sentAtMs;
		const start = Math.max(request.sentAtMs, coveredUntil);
		if (end > start) underWayMs += end - start;
		coveredUntil = Math.max(coveredUntil, end);
	}
	const waitedMs = (execution.returnedAtMs ?? 0) - (execution.startedAtMs ?? 0) - underWayMs;
	const limitMs = execution.delivery.maxWaitSeconds * 1000;
	return waitedMs + 1 < limitMs ? [`maxWait: ${where} was given up for Max Wait Seconds (${execution.delivery.maxWaitSeconds} s) after waiting ${waitedMs} ms beside its own requests`] : [];
}

/** The spans `[startMs, endMs]` cover of `fromMs` to `toMs`. */
function coveredMs(spans: ReadonlyArray<{ startMs: number; endMs: number }>, fromMs: number, toMs: number): number {
	let covered = 0;
	let until = fromMs;
	for (const { startMs, endMs } of [...spans].sort((a, b) => a.startMs - b.startMs)) {
		const start = Math.max(startMs, until);
		const end = Math.min(endMs, toMs);
		if (end > start) covered += end - start;
		until = Math.max(until, Math.min(endMs, toMs));
	}
	return covered;
}

/**
 * An execution waits no longer than Max Wait Seconds since the service last reported on its
 * transactions (or since its start), less the time its own requests and its process's store
 * calls were under way, and, under `n8n execute`, its keys' first rounds after its last request;
 * until it returned, or n8n cancelled it.
 */
export function overdueProblems(world: World, execution: Execution): string[] {
	const { startedAtMs, delivery, again } = execution;
	// Once n8n cancelled it, what is left is giving its keys back to n8n's store: `ends` judges that it ends.
	const returnedAtMs = Math.min(execution.returnedAtMs ?? Number.NaN, execution.cancelledAtMs ?? Number.POSITIVE_INFINITY);
	if (again || startedAtMs === undefined || Number.isNaN(returnedAtMs) || delivery.dryRun) return [];
	const own = world.record.requests.filter((request) => request.carried.some((carried) => carried.delivery === execution.index));
	const busy = [
		...own.map((request) => ({ startMs: request.sentAtMs, endMs: request.answeredAtMs ?? returnedAtMs })),
		...world.record.storeSpans.filter((span) => span.process === delivery.process),
	];
	// A 200 whose reports name their transactions restarts Max Wait Seconds, in whatever order they come.
	const reported = (request: RequestRecord) => request.answer.kind === 'taken' || request.answer.kind === 'reordered' || (request.answer.kind === 'declined' && delivery.ignoreInvalid);
	const resets = own.filter(reported).map((request) => request.answeredAtMs ?? returnedAtMs);
	const bounds = [startedAtMs, ...resets.filter((atMs) => atMs > startedAtMs && atMs < returnedAtMs).sort((a, b) => a - b), returnedAtMs];
	const problems: string[] = [];
	for (let index = 1; index < bounds.length; index++) {
		const [fromMs, toMs] = [bounds[index - 1], bounds[index]];
		const waitedMs = toMs - fromMs - coveredMs(busy, fromMs, toMs);
		const limitMs = delivery.maxWaitSeconds * 1000 + (world.simulated.commandLine ? COMMAND_LINE_ROUNDS_MS : 0);
		if (waitedMs > limitMs) problems.push(`overdue: execution ${execution.index} on process ${delivery.process} waited ${waitedMs} ms from ${fromMs - startedAtMs} ms after its start beside its own requests and its process's store calls, over Max Wait Seconds (${delivery.maxWaitSeconds} s) and ${limitMs - delivery.maxWaitSeconds * 1000} ms of its keys' rounds`);
	}
	return problems;
}

/** Under `n8n execute`, an execution waits for its keys' first confirmation round and removal rounds (keyRounds.ts): at most this long. */
const COMMAND_LINE_ROUNDS_MS = 1500;

/** A request of `process` that started after `afterMs`, before `beforeMs`. */
const sentBetween = (requests: readonly RequestRecord[], afterMs: number, beforeMs: number) => requests.filter((request) => request.sentAtMs > afterMs && request.sentAtMs < beforeMs);

/** The requests of each process's life, in the order they left: a process started again knows nothing of its earlier life's refusals. */
function requestsPerProcess(world: World): RequestRecord[][] {
	const per = new Map<string, RequestRecord[]>();
	for (const request of world.record.requests) {
		const life = `${request.process}/${request.life}`;
		per.set(life, [...(per.get(life) ?? []), request]);
	}
	return [...per.values()];
}

/** After a 429 or 503, a process sends nothing until the pause the service asked, and at least the first backoff's, has passed. */
export function pauseProblems(world: World): string[] {
	const problems: string[] = [];
	for (const requests of requestsPerProcess(world)) {
		for (const refused of requests) {
			const { answer, answeredAtMs } = refused;
			if (answer.kind !== 'refused' || answeredAtMs === undefined) continue;
			const pauseMs = pauseAskedMs(answer.retryAfter);
			const early = sentBetween(requests, answeredAtMs, answeredAtMs + pauseMs);
			if (early.length > 0) problems.push(`pause: request ${refused.number} was answered ${answer.status} with Retry-After ${JSON.stringify(answer.retryAfter ?? 'absent')}, and process ${refused.process} sent ${early.length} requests within ${pauseMs} ms of it, the first ${early[0].sentAtMs - answeredAtMs} ms after`);
		}
	}
	return problems;
}

/** Whether an answer teaches the account's gate that it takes requests again: any HTTP answer but a 429 or 503. */
const answeredOtherThanRefusal = (request: RequestRecord) => !isRefusal(request.answer) && !['unreachable', 'broken', 'silent'].includes(request.answer.kind);

/**
 * After a refusal, until the account takes a request sent since, a process risks one request at
 * a time of at most `PROBE_BYTES` (docs/behaviour.md, The Account's Requests).
 */
export function probeProblems(world: World): string[] {
	const problems: string[] = [];
	// A fault of this code while the gate learned from an answer costs that lesson only (transport's `apiRequest`): such a refusal taught nothing.
	const lessonsLost = new Set(world.codeFaultsFired.filter(({ name }) => name === 'AccountGate.answered').map(({ atMs }) => atMs));
	for (const requests of requestsPerProcess(world)) {
		for (const refused of requests) {
			if (!isRefusal(refused.answer) || refused.answeredAtMs === undefined || lessonsLost.has(refused.answeredAtMs)) continue;
			const refusedAtMs = refused.answeredAtMs;
			const accepted = requests.filter((request) => request.sentAtMs >= refusedAtMs && answeredOtherThanRefusal(request) && request.answeredAtMs !== undefined);
			const acceptedAtMs = Math.min(Number.POSITIVE_INFINITY, ...accepted.map((request) => request.answeredAtMs ?? Number.POSITIVE_INFINITY));
			for (const probe of sentBetween(requests, refusedAtMs, acceptedAtMs)) {
				if (probe.bytes > PROBE_BYTES) problems.push(`probe: request ${probe.number} of process ${probe.process} carried ${probe.bytes} bytes (${probe.carried.length} transactions) after request ${refused.number}'s refusal, before the account took one, over ${PROBE_BYTES}`);
				// Requests are numbered as they reach the service: one that left before, and had no answer yet.
				const beside = requests.filter((other) => other.number < probe.number && (other.answeredAtMs ?? Number.POSITIVE_INFINITY) > probe.sentAtMs);
				if (beside.length > 0) problems.push(`probe: request ${probe.number} of process ${probe.process} left after request ${refused.number}'s refusal beside request ${beside[0].number}, still under way`);
			}
		}
	}
	return problems;
}


