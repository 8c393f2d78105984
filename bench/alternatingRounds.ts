/**
 * Several flows measured against each other in one process: rounds of executions, the flows'
 * order reversed every round (A B C, C B A, ...) so that drift over the run (JIT, heap growth,
 * the machine's load) falls on all of them alike. Per round it takes the CPU time of all the
 * process's threads (`process.cpuUsage()`: the main thread, V8's GC helpers, libuv's pool) and
 * the wall time; V8's `gc` performance entries are given to the round in which they started.
 */
import { constants, performance, PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

import { processCpuMs } from './measure';

export interface FlowTotals {
	executions: number;
	cpuMs: number;
	wallMs: number;
	/** Summed duration of the GC performance entries (pauses of the main thread). */
	gcMs: number;
	gcCount: number;
	/** Full (mark-sweep-compact) collections. */
	majorGcCount: number;
}

interface GcEntry {
	startTime: number;
	duration: number;
	kind: number;
}

interface Window {
	flow: string;
	start: number;
	end: number;
}

export interface RoundPlan {
	/** Executions of each flow before measuring, alternating as the measured rounds do. */
	warmUp: number;
	/** Measured executions of each flow. */
	executions: number;
	perRound: number;
}

/** The rounds of `executions` per flow, `perRound` at a time, the flows' order reversed every round. */
function* rounds(flows: string[], executions: number, perRound: number): Generator<{ flow: string; count: number }> {
	for (let done = 0, index = 0; done < executions; done += perRound, index++) {
		const count = Math.min(perRound, executions - done);
		for (const flow of index % 2 === 0 ? flows : [...flows].reverse()) yield { flow, count };
	}
}

/**
 * Runs `execute(flow)` for every flow in alternating rounds and returns each flow's totals over
 * the measured rounds. `execute` must check its own result.
 */
export async function measureAlternating(flows: string[], plan: RoundPlan, execute: (flow: string) => Promise<void>): Promise<Record<string, FlowTotals>> {
	for (const { flow, count } of rounds(flows, plan.warmUp, plan.perRound)) for (let run = 0; run < count; run++) await execute(flow);

	const entries: GcEntry[] = [];
	const observer = new PerformanceObserver((list) => {
		for (const entry of list.getEntries()) entries.push({ startTime: entry.startTime, duration: entry.duration, kind: (entry as unknown as { detail: { kind: number } }).detail.kind });
	});
	observer.observe({ entryTypes: ['gc'] });
	const totals = Object.fromEntries(flows.map((flow) => [flow, { executions: plan.executions, cpuMs: 0, wallMs: 0, gcMs: 0, gcCount: 0, majorGcCount: 0 }])) as Record<string, FlowTotals>;
	const windows: Window[] = [];
	for (const { flow, count } of rounds(flows, plan.executions, plan.perRound)) {
		const cpuBefore = processCpuMs();
		const start = performance.now();
		for (let run = 0; run < count; run++) await execute(flow);
		const end = performance.now();
		totals[flow].cpuMs += processCpuMs() - cpuBefore;
		totals[flow].wallMs += end - start;
		windows.push({ flow, start, end });
	}
	// Entries are delivered a turn or two after their collection.
	for (let turn = 0; turn < 10; turn++) await nextTurn();
	observer.disconnect();
	for (const entry of entries) {
		const window = windows.find(({ start, end }) => entry.startTime >= start && entry.startTime < end);
		if (window === undefined) continue;
		const flowTotals = totals[window.flow];
		flowTotals.gcMs += entry.duration;
		flowTotals.gcCount++;
		if (entry.kind === constants.NODE_PERFORMANCE_GC_MAJOR) flowTotals.majorGcCount++;
	}
	return totals;
}
