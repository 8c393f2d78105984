/**
 * Check 2: the Mailing Platform Trigger in the real engine. Polls run in the main instance, the
 * executions they start run on workers, and the trigger's position lives in the workflow's
 * static data in Postgres. Blocks added between polls, around three SIGTERM restarts of the
 * main instance, must each be emitted exactly once, with their true instant.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ServiceDouble } from '../double/server';
import { finishedExecutions, type N8nInstance } from './cluster';
import type { Collector } from './collector';

/** Long enough for the next poll (every 10 s), its execution on a worker, and a loaded machine. */
const ARRIVAL_LIMIT_MS = 90_000;
/** After the last block arrived: two more polls, to catch any block emitted a second time. */
export const SETTLE_MS = 25_000;

export interface TriggerContext {
	double: ServiceDouble;
	collector: Collector;
	workers: () => N8nInstance[];
	/**
	 * Sends `signal` to the main instance at once, runs `whileDown` once it has exited, starts a
	 * new one and resolves with the seconds that start took.
	 */
	restartMain(signal: 'SIGTERM' | 'SIGKILL', whileDown?: () => void | Promise<void>): Promise<number>;
}

export interface TriggerFigures {
	restarts: number;
	blocksAroundRestarts: number;
	blocksInAll: number;
	repeated: number;
	lost: number;
	mainStartSeconds: number[];
	/** Block written -> its item received from the workflow, in seconds (the max includes main's restarts). */
	latency: { median: number; max: number };
}

/** Every block this run adds, by its (unique) e-mail, with the instant the service recorded. */
export class BlockLedger {
	readonly added = new Map<string, number>();

	/** When each block was added here (a late write is added now with an earlier instant). */
	readonly writtenAt = new Map<string, number>();

	private counter = 0;

	constructor(private readonly double: ServiceDouble) {}

	/** Adds `count` blocks written `agoMs` before now (late writes when > 0); returns their e-mails. */
	add(label: string, count: number, agoMs = 0): string[] {
		const emails: string[] = [];
		for (let index = 0; index < count; index++) {
			const email = `${label}-${++this.counter}@example.com`;
			const block = this.double.reports.addBlock({ at: new Date(Date.now() - agoMs), email });
			this.added.set(email, block.atMs);
			this.writtenAt.set(email, Date.now());
			emails.push(email);
		}
		return emails;
	}
}

function timesReceived(collector: Collector, email: string): number {
	return collector.received.filter((entry) => entry.block.email === email).length;
}

/** Waits until each of `emails` was received at least once. */
export async function waitForBlocks(collector: Collector, emails: string[], what: string): Promise<void> {
	const deadline = Date.now() + ARRIVAL_LIMIT_MS;
	while (Date.now() < deadline) {
		if (emails.every((email) => timesReceived(collector, email) > 0)) return;
		await sleep(250);
	}
	const missing = emails.filter((email) => timesReceived(collector, email) === 0);
	throw new Error(`${what}: ${missing.length} of ${emails.length} blocks never emitted within ${ARRIVAL_LIMIT_MS / 1000} s: ${missing.join(', ')}`);
}

/**
 * Resolves as soon as the service has answered a poll (a block report) asked after request
 * number `firstRequest`, covering `fromMs` when given. Checked every event-loop turn: the
 * double runs in this process, so this sees the answer within a millisecond of it leaving.
 */
export async function pollAnswered(double: ServiceDouble, firstRequest: number, fromMs = Number.POSITIVE_INFINITY): Promise<void> {
	const deadline = Date.now() + ARRIVAL_LIMIT_MS;
	while (Date.now() < deadline) {
		const answered = double.requests.slice(firstRequest).some((request) => {
			if (request.rawPath !== 'reports/blocks' || request.status !== 200) return false;
			const from = request.query.find(([key]) => key === 'from_date')?.[1];
			return from === undefined || Number(from) <= fromMs;
		});
		if (answered) return;
		await new Promise((resolve) => setImmediate(resolve));
	}
	throw new Error(`no poll was answered within ${ARRIVAL_LIMIT_MS / 1000} s`);
}

function median(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Asserts exactly-once and true instants for `emails`, and that workers ran every emitting execution. */
async function checkEmitted(context: TriggerContext, ledger: BlockLedger, emails: string[], unseen: string[]) {
	const { collector } = context;
	const counts = emails.map((email) => [email, timesReceived(collector, email)] as const);
	const repeated = counts.filter(([, count]) => count > 1);
	const lost = counts.filter(([, count]) => count === 0);
	assert.deepEqual(repeated, [], 'no block is emitted twice');
	assert.deepEqual(lost, [], 'no block is lost');
	const early = unseen.filter((email) => timesReceived(collector, email) > 0);
	assert.deepEqual(early, [], 'blocks written before the first activation are not emitted');

	const wrongInstant = collector.received
		.filter((entry) => ledger.added.has(entry.block.email ?? ''))
		.filter((entry) => Date.parse(String(entry.block.timestamp)) !== ledger.added.get(entry.block.email ?? ''))
		.map((entry) => `${entry.block.email}: ${entry.block.timestamp} is not ${new Date(ledger.added.get(entry.block.email ?? '') ?? 0).toISOString()}`);
	assert.deepEqual(wrongInstant, [], 'each block carries the instant the service recorded (platform zone Europe/Berlin, n8n America/New_York)');

	const onWorkers = new Map<string, boolean>();
	for (const worker of context.workers()) for (const [id, success] of await finishedExecutions(worker)) onWorkers.set(id, success);
	const executions = [...new Set(collector.received.map((entry) => entry.executionId))];
	const notOnWorker = executions.filter((id) => onWorkers.get(id) !== true);
	assert.deepEqual(notOnWorker, [], 'every emitting execution ran on a worker and succeeded (worker logs)');
	return { repeated: repeated.length, lost: lost.length };
}

/**
 * Blocks between polls, then three SIGTERM restarts of the main instance with blocks written
 * before the stop, while it is down and after it is back. `unseen` were written before the
 * workflow's first activation.
 */
export async function runTrigger(context: TriggerContext, ledger: BlockLedger, unseen: string[]): Promise<TriggerFigures> {
	const { collector } = context;
	const between = ledger.add('between-polls', 4);
	await waitForBlocks(collector, between, 'blocks written between polls');
	const late = [...ledger.add('same-second', 2), ...ledger.add('written-late', 1, 30_000)];
	await waitForBlocks(collector, late, 'blocks in one second and a block written 30 s late');

	const around: string[] = [];
	const mainStartSeconds: number[] = [];
	for (let restart = 1; restart <= 3; restart++) {
		// Right after a poll, so that the stop does not land inside one (that is the hard kill's case).
		await pollAnswered(context.double, context.double.requests.length);
		const beforeStop = ledger.add(`restart${restart}-before-stop`, 2);
		let whileDown: string[] = [];
		const whileDownStart = () => {
			whileDown = ledger.add(`restart${restart}-while-down`, 2);
		};
		mainStartSeconds.push(await context.restartMain('SIGTERM', whileDownStart));
		const afterStart = ledger.add(`restart${restart}-after-start`, 2);
		around.push(...beforeStop, ...whileDown, ...afterStart);
		await waitForBlocks(collector, [...beforeStop, ...whileDown, ...afterStart], `restart ${restart}`);
	}
	await sleep(SETTLE_MS);

	const emails = [...between, ...late, ...around];
	const { repeated, lost } = await checkEmitted(context, ledger, emails, unseen);
	const latencies = emails.map((email) => {
		const first = Math.min(...collector.received.filter((entry) => entry.block.email === email).map((entry) => entry.atMs));
		return (first - (ledger.writtenAt.get(email) ?? first)) / 1000;
	});
	return {
		restarts: 3,
		blocksAroundRestarts: around.length,
		blocksInAll: emails.length,
		repeated,
		lost,
		mainStartSeconds,
		latency: { median: median(latencies), max: Math.max(...latencies) },
	};
}
