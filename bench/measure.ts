import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

/**
 * Linux's per-thread scheduler clocks of this process's main thread (its id is the process
 * id), in milliseconds: time on a CPU, and time ready to run but waiting for a CPU.
 */
function mainThreadClocks(): { cpuMs: number; waitingForCpuMs: number } {
	const [cpu, waiting] = readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ');
	return { cpuMs: Number(cpu) / 1e6, waitingForCpuMs: Number(waiting) / 1e6 };
}

/** CPU time of the main thread so far; `process.cpuUsage()` would add V8's GC and libuv threads. */
export function mainThreadCpuMs(): number {
	return mainThreadClocks().cpuMs;
}

/** CPU time of all threads of this process so far, in milliseconds. */
export function processCpuMs(): number {
	const { user, system } = process.cpuUsage();
	return (user + system) / 1000;
}

/** The largest resident set this process has had, in bytes, seen by the kernel (synchronous work included). */
export function peakRssBytes(): number {
	return process.resourceUsage().maxRSS * 1024;
}

/** A full garbage collection; the bench runs with --expose-gc. */
export function collectGarbage(): void {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (gc === undefined) throw new Error('run the bench with node --expose-gc');
	gc();
}

export interface CallMeasurement {
	mainThreadCpuMs: number;
	/** Time the main thread was ready to run but every CPU was busy (other processes included). */
	mainThreadWaitingForCpuMs: number;
	processCpuMs: number;
	wallMs: number;
}

/** Main-thread CPU, all threads' CPU and wall time of one call, from its start to its end. */
export async function measureCall<T>(call: () => Promise<T>): Promise<{ result: T; measurement: CallMeasurement }> {
	const clocks = mainThreadClocks();
	const allCpu = processCpuMs();
	const started = performance.now();
	const result = await call();
	const wallMs = performance.now() - started;
	const { cpuMs, waitingForCpuMs } = mainThreadClocks();
	return {
		result,
		measurement: {
			wallMs,
			mainThreadCpuMs: cpuMs - clocks.cpuMs,
			mainThreadWaitingForCpuMs: waitingForCpuMs - clocks.waitingForCpuMs,
			processCpuMs: processCpuMs() - allCpu,
		},
	};
}

/** Wall time in which the main thread neither ran nor waited for a CPU: waiting for I/O. */
export function idleMs(measurement: CallMeasurement): number {
	return measurement.wallMs - measurement.mainThreadCpuMs - measurement.mainThreadWaitingForCpuMs;
}

export interface ExecuteMeasurement extends CallMeasurement {
	/** RSS when execute() starts, after a full GC: the input items are held by then. */
	rssAtStartBytes: number;
	/** The kernel's maxRSS when execute() starts and when it returns: a higher end is a peak reached inside it. */
	peakRssAtStartBytes: number;
	peakRssAtEndBytes: number;
}

/** The package's node with its execute() measured: that call alone, not the workflow around it. */
export function measuredNode(inner: INodeType): { node: INodeType; last: () => ExecuteMeasurement } {
	let last: ExecuteMeasurement | undefined;
	const node: INodeType = {
		description: inner.description,
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			collectGarbage(); // the input's garbage belongs to the node before, not to this one
			const rssAtStartBytes = process.memoryUsage().rss;
			const peakRssAtStartBytes = peakRssBytes();
			const { result, measurement } = await measureCall(async () => (await inner.execute?.call(this)) as INodeExecutionData[][]);
			last = { ...measurement, rssAtStartBytes, peakRssAtStartBytes, peakRssAtEndBytes: peakRssBytes() };
			return result;
		},
	};
	return {
		node,
		last: () => {
			if (last === undefined) throw new Error('the measured node did not run');
			return last;
		},
	};
}
