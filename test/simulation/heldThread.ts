/**
 * How long one step of a case held the thread: while it ran, none of n8n's timers (a 1 ms one
 * included) could fire. A step is the scheduler letting one answer, store call or timer settle,
 * with everything that follows from it at once. Measured on the real clock (jest fakes the global
 * `performance`, not `node:perf_hooks`'), as the lesser of wall time and the thread's CPU time
 * (the first grows when the machine's other work preempts the test, the second where no figure of
 * the thread alone can be had and V8's helper threads count too), less V8's garbage-collection pauses
 * within it: those hold n8n's thread whatever the node does.
 */
import { openSync, readSync } from 'node:fs';
import { performance, PerformanceObserver } from 'node:perf_hooks';

/** The longest a step may hold the thread. */
export const HELD_LIMIT_MS = 50;

/**
 * This thread's CPU time: Node.js 24 tells it; on Linux an older one reads it from /proc (the
 * first figure of the thread's schedstat, in ns, read again through one open file); elsewhere the
 * process's, V8's helper threads included.
 */
function threadCpuClock(): () => number {
	const threadCpuUsage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
	if (threadCpuUsage !== undefined) return () => {
		const { user, system } = threadCpuUsage.call(process);
		return (user + system) / 1000;
	};
	try {
		const file = openSync('/proc/thread-self/schedstat', 'r');
		const buffer = Buffer.alloc(64);
		return () => Number(buffer.toString('latin1', 0, readSync(file, buffer, 0, buffer.length, 0)).split(' ')[0]) / 1e6;
	} catch {
		return () => {
			const { user, system } = process.cpuUsage();
			return (user + system) / 1000;
		};
	}
}

/** This thread's CPU time in ms, as well as it can be had here. */
export const threadCpuMs = threadCpuClock();

interface Span {
	startMs: number;
	endMs: number;
}

/** V8's pauses of the last minute, as the observer has had them (a few turns of the loop after each). */
const pauses: Span[] = [];
new PerformanceObserver((list) => {
	for (const entry of list.getEntries()) pauses.push({ startMs: entry.startTime, endMs: entry.startTime + entry.duration });
	const since = performance.now() - 60_000;
	while (pauses.length > 0 && pauses[0].endMs < since) pauses.shift();
}).observe({ entryTypes: ['gc'] });

const pausedWithin = ({ startMs, endMs }: Span) => pauses.reduce((sum, pause) => sum + Math.max(0, Math.min(endMs, pause.endMs) - Math.max(startMs, pause.startMs)), 0);

const OBSERVER_TURNS = 10;

export class HeldThread {
	/** The longest a step held the thread, V8's pauses left out, where that is over the limit. */
	longestOverLimitMs: number | undefined;

	/**
	 * Measures one step, where `judged`: after the case the model's store and service answer
	 * without the turns of the event loop n8n's database and HTTP calls take, so that one step
	 * holds a whole retried bulk's sending (250 claims and requests, 120 ms), which n8n spreads
	 * over as many turns.
	 */
	async step(run: () => Promise<void>, judged = true): Promise<void> {
		if (!judged) return await run();
		const startMs = performance.now();
		const startCpuMs = threadCpuMs();
		await run();
		const endMs = performance.now();
		const ms = Math.min(endMs - startMs, threadCpuMs() - startCpuMs);
		if (ms <= HELD_LIMIT_MS) return;
		// The observer has V8's pauses only some turns after them (a pause of 164 ms came 3 turns late).
		for (let turn = 0; turn < OBSERVER_TURNS; turn++) await new Promise((resolve) => setImmediate(resolve));
		const held = ms - pausedWithin({ startMs, endMs });
		if (held > HELD_LIMIT_MS) this.longestOverLimitMs = Math.max(this.longestOverLimitMs ?? 0, held);
	}
}
