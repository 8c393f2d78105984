/**
 * A shop's steady state, Create's flows beside what a user builds from n8n's own nodes for the
 * same promise: keyed Create beside Remove Duplicates before the HTTP Request node with a Header
 * Auth credential, Create without the key beside that HTTP Request node alone (and, with
 * `--compare`, printed only, the HTTP Request node with the header written in it). First with no
 * history, then with both keyed flows' histories full at their default size, as after some weeks
 * of orders, so that every execution reads and rewrites the whole row; each history is filled by
 * its own nodes (batches of orders through a second webhook into the same nodes). Orders arrive
 * one per webhook call, in rounds alternating the flows' order. No budget, and an account of its
 * own (nothing the rush taught the sandbox account's sender applies): this measures n8n's side.
 * Judged: CPU of n8n's process group per order, read from /proc around each round, from before
 * its first POST until a moment after its last execution ended, summed over each flow's rounds.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { DEFAULT_HISTORY_SIZE } from '../../nodes/MailingPlatform/actions/transaction/create.description';
import type { ServiceDouble } from '../double/server';
import { deliverPlan, shopOrders, type ShopOrder } from './delivery';
import { type ExecutionStore, waitUntilEnded } from './executions';
import { processGroupCpuMs } from './processGroupCpu';
import { executionsOf, queuedTimes } from './rush';
import type { ExecutionSpan } from './sqliteExecutions';
import { type RushSettings, STEADY_LIMITS } from './rushSettings';
import { batchBody, RUSH_FLOW_LABELS, type RushWorkflow, STEADY_FLOWS, type SteadyFlow, type SteadyWorkflows } from './rushWorkflows';

const ROUNDS = 5;
/** Each round's orders per flow; a phase delivers ROUNDS of them. */
const ordersPerRound = (settings: RushSettings) => Math.ceil(settings.steadyOrders / ROUNDS);
const SETTLE_LIMIT_MS = 10 * 60_000;
/** After a round's executions ended: n8n saves and cleans up after them. */
const AFTERMATH_MS = 1_000;

export interface SteadyEnvironment {
	double: ServiceDouble;
	store: ExecutionStore;
	webhookBase: string;
	/** The process group of `n8n start`. */
	n8nGroup: number;
	/** Entries in the history row of n8n's store of the workflow's node that keeps one, as n8n saved it. */
	historyEntries(workflowId: string): Promise<number>;
	executionSpans(workflowId: string): Promise<Map<string, ExecutionSpan>>;
}

/** A steady state: with no history yet, or with it full. */
export type SteadyPhase = 'noHistory' | 'historyFull';

/** One flow's rounds in a phase. */
export interface FlowFigures {
	executionMs: { p50: number; p95: number };
	/** CPU of n8n's process group during the flow's rounds, per order delivered in them, in milliseconds. */
	cpuPerOrderMs: number;
	/**
	 * The flow's executions that started while another of them still ran: a steady state has few,
	 * while overlapping keyed executions share their store calls, which hides the key's cost.
	 */
	overlapping: number;
}

/** One phase's rounds, per flow run. */
export type PhaseFigures = Partial<Record<SteadyFlow, FlowFigures>>;

export interface SteadyFigures {
	fillOrders: number;
	fillSeconds: number;
	/** Entries in each filled flow's history row. */
	historyEntries: Partial<Record<SteadyFlow, number>>;
	/** Orders per flow in each phase. */
	orders: number;
	phases: Record<SteadyPhase, PhaseFigures>;
	/** What went wrong: orders not queued exactly once, executions that failed, POSTs not answered 200. */
	problems: string[];
}

/** How many of the executions started while an earlier-started one had not yet stopped. */
function startedWhileAnotherRan(spans: ExecutionSpan[]): number {
	let latestStop = Number.NEGATIVE_INFINITY;
	let count = 0;
	for (const { startedMs, stoppedMs } of [...spans].sort((a, b) => a.startedMs - b.startedMs)) {
		if (startedMs < latestStop) count++;
		latestStop = Math.max(latestStop, stoppedMs);
	}
	return count;
}

/** Delivers the fill batches one after another, each execution ended before the next. */
async function fillHistory(environment: SteadyEnvironment, keyed: RushWorkflow<SteadyFlow>, settings: RushSettings): Promise<ShopOrder[]> {
	const orders = shopOrders(`FILL-${keyed.flow}`, settings.steadyFillOrders);
	const url = `${environment.webhookBase}/${keyed.fillPath}`;
	for (let start = 0, batch = 1; start < orders.length; start += settings.steadyFillBatch, batch++) {
		const body = batchBody(orders.slice(start, start + settings.steadyFillBatch));
		const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
		if (response.status !== 200) throw new Error(`Filling ${keyed.flow}'s history: batch ${batch} was answered HTTP ${response.status}`);
		await waitUntilEnded(environment.store, keyed.file.id, batch, SETTLE_LIMIT_MS);
	}
	return orders;
}

/** One round of a flow: its orders one per webhook call at the steady rate, and the CPU of n8n's process group until a moment after its last execution ended. */
async function deliverRound(environment: SteadyEnvironment, workflow: SteadyWorkflows[number], orders: ShopOrder[], settings: RushSettings) {
	const { store } = environment;
	const interval = 1000 / settings.steadyOrdersPerSecond;
	const before = (await store.list(workflow.file.id)).length;
	const cpuBefore = processGroupCpuMs(environment.n8nGroup);
	const deliveries = await deliverPlan(`${environment.webhookBase}/${workflow.webhookPath}`, orders.map((order, index) => ({ atMs: index * interval, order })));
	// A POST n8n did not answer 200 started no execution: the round's problems say so.
	await waitUntilEnded(store, workflow.file.id, before + deliveries.filter((delivery) => delivery.problem === undefined).length, SETTLE_LIMIT_MS);
	await sleep(AFTERMATH_MS);
	return { deliveries, cpuMs: processGroupCpuMs(environment.n8nGroup) - cpuBefore };
}

/** Orders one per webhook call at the steady rate, each flow in turn, in rounds alternating their order. */
async function measurePhase(environment: SteadyEnvironment, workflows: SteadyWorkflows, settings: RushSettings, phase: SteadyPhase, problems: string[]): Promise<PhaseFigures> {
	const { double, store } = environment;
	const delivered = new Map<SteadyFlow, ShopOrder[]>(workflows.map((workflow) => [workflow.flow, []]));
	const cpuMs = new Map<SteadyFlow, number>();
	for (let round = 0; round < ROUNDS; round++) {
		for (const workflow of round % 2 === 0 ? workflows : [...workflows].reverse()) {
			const orders = shopOrders(`STEADY-${phase}-${workflow.flow}-${round + 1}`, ordersPerRound(settings));
			const { deliveries, cpuMs: roundCpuMs } = await deliverRound(environment, workflow, orders, settings);
			cpuMs.set(workflow.flow, (cpuMs.get(workflow.flow) ?? 0) + roundCpuMs);
			delivered.get(workflow.flow)?.push(...orders);
			problems.push(...deliveries.filter((delivery) => delivery.problem !== undefined).map((delivery) => `POST of ${delivery.orderId}: ${delivery.problem}`));
		}
	}

	const figures: PhaseFigures = {};
	for (const workflow of workflows) {
		const orders = delivered.get(workflow.flow) ?? [];
		const queued = queuedTimes(double, orders);
		if (queued.once !== orders.length) problems.push(`${phase}, ${workflow.flow}: ${orders.length - queued.once} of ${orders.length} orders not queued exactly once, e.g. ${queued.neverIds[0] ?? '(doubled)'}`);
		const measured = await executionsOf(store, workflow, orders);
		if (measured.failed.length > 0) problems.push(`${phase}, ${workflow.flow}: ${measured.failed.length} executions failed, e.g. ${measured.failed[0].id}: ${measured.failed[0].nodeErrors.join('; ').slice(0, 200)}`);
		const spans = await environment.executionSpans(workflow.file.id);
		figures[workflow.flow] = {
			executionMs: measured.executionMs,
			cpuPerOrderMs: (cpuMs.get(workflow.flow) ?? 0) / orders.length,
			overlapping: startedWhileAnotherRan(measured.outcomes.map((outcome) => spans.get(outcome.id)).filter((span): span is ExecutionSpan => span !== undefined)),
		};
	}
	return figures;
}

/** Every flow warmed up; the phase with no history; the keyed flows' histories filled; the phase with them full. */
export async function measureSteadyState(environment: SteadyEnvironment, workflows: SteadyWorkflows, settings: RushSettings): Promise<SteadyFigures> {
	const { double } = environment;
	double.budget = undefined;
	double.faults.reset();
	const problems: string[] = [];

	// A round of each flow unmeasured: the first round after a start paid for n8n's and V8's warming up (keyed 58 and
	// 62 ms per order against 42 to 49 in the rounds after, in two runs), and the keyed flow always went first.
	for (const workflow of workflows) await deliverRound(environment, workflow, shopOrders(`SW-${workflow.flow}`, ordersPerRound(settings)), settings);
	const noHistory = await measurePhase(environment, workflows, settings, 'noHistory', problems);

	const fillStarted = performance.now();
	const historyEntries: SteadyFigures['historyEntries'] = {};
	for (const keyed of workflows.filter((workflow) => workflow.fillPath !== undefined)) {
		const filled = await fillHistory(environment, keyed, settings);
		const fillQueued = queuedTimes(double, filled);
		if (fillQueued.once !== filled.length) problems.push(`filling ${keyed.flow}: ${filled.length - fillQueued.once} of ${filled.length} orders not queued exactly once`);
		// Keyed Create's last confirmation rounds go on after its executions.
		await sleep(5_000);
		historyEntries[keyed.flow] = await environment.historyEntries(keyed.file.id);
	}
	const fillSeconds = (performance.now() - fillStarted) / 1000;
	const historyFull = await measurePhase(environment, workflows, settings, 'historyFull', problems);

	const orders = ordersPerRound(settings) * ROUNDS;
	return { fillOrders: settings.steadyFillOrders, fillSeconds, historyEntries, orders, phases: { noHistory, historyFull }, problems: problems.slice(0, 8) };
}

/** Each of Create's flows judged against its peer: the flow a user builds from n8n's own nodes for the same promise. */
const JUDGED: ReadonlyArray<{ flow: SteadyFlow; peer: SteadyFlow; title: string }> = [
	{ flow: 'steadyKeyed', peer: 'steadyRemoveDuplicates', title: 'keyed Create / Remove Duplicates before the HTTP Request node' },
	{ flow: 'steadyUnkeyed', peer: 'steadyCredentialHttpRequest', title: 'Create without the key / HTTP Request node' },
];

/** The keyed histories after `fillOrders` orders: full from the default History Size on (`--fill-orders` may fill fewer). */
const filledHistories = (fillOrders: number) => (fillOrders >= DEFAULT_HISTORY_SIZE ? 'full' : `filled with ${fillOrders.toLocaleString('en-US')} orders, not full`);

const phaseTitle = (phase: SteadyPhase, fillOrders: number) => (phase === 'noHistory' ? 'no history yet' : `the histories ${filledHistories(fillOrders)}`);
const PHASES: readonly SteadyPhase[] = ['noHistory', 'historyFull'];

/** The figures as lines; passes when nothing went wrong and each of Create's flows stays within `STEADY_LIMITS` of its peer in both phases. */
export function describeSteadyState(figures: SteadyFigures, settings: RushSettings): { lines: string[]; passed: boolean } {
	const entries = Object.entries(figures.historyEntries).map(([flow, count]) => `${RUSH_FLOW_LABELS[flow as SteadyFlow]}: ${count.toLocaleString('en-US')}`);
	const lines = [
		`Steady state: ${figures.orders} orders per flow at ${settings.steadyOrdersPerSecond} per second in ${ROUNDS} alternating rounds, no budget, first with no history, then with the keyed flows' histories ${filledHistories(figures.fillOrders)} (${figures.fillOrders.toLocaleString('en-US')} orders delivered to each in between in batches of ${settings.steadyFillBatch.toLocaleString('en-US')}, ${figures.fillSeconds.toFixed(0)} s in all; entries in the history rows then: ${entries.join('; ')}); CPU of n8n's process group (/proc) per order over each flow's rounds, execution time from n8n's startedAt to stoppedAt:`,
	];
	let passed = figures.problems.length === 0;
	for (const phase of PHASES) {
		const flows = figures.phases[phase];
		lines.push(
			`  ${phaseTitle(phase, figures.fillOrders)}:`,
			...STEADY_FLOWS.flatMap((flow) => {
				const measured = flows[flow];
				return measured === undefined
					? []
					: [`    ${RUSH_FLOW_LABELS[flow]}: CPU per order ${measured.cpuPerOrderMs.toFixed(1)} ms; execution p50 ${Math.round(measured.executionMs.p50)} ms, p95 ${Math.round(measured.executionMs.p95)} ms; ${measured.overlapping} of ${figures.orders} started while another of the flow ran`];
			}),
		);
		for (const { flow, peer, title } of JUDGED) {
			const [mine, theirs] = [flows[flow], flows[peer]];
			if (mine === undefined || theirs === undefined) throw new Error(`The steady state measured no ${flow} or no ${peer}`);
			const ratio = mine.cpuPerOrderMs / theirs.cpuPerOrderMs;
			const p50LimitMs = STEADY_LIMITS.p50Times * theirs.executionMs.p50;
			const cpuMet = ratio <= STEADY_LIMITS.cpuRatio;
			// The p50 is printed, not judged: on a loaded machine it measures the machine.
			passed &&= cpuMet;
			lines.push(
				`    ${title}, CPU per order: ${ratio.toFixed(2)} (at most ${STEADY_LIMITS.cpuRatio}: ${cpuMet ? 'met' : 'MISSED'}); execution p50 ${Math.round(mine.executionMs.p50)} ms (at most ${Math.round(p50LimitMs)} ms: ${mine.executionMs.p50 <= p50LimitMs ? 'met' : 'MISSED'})`,
			);
		}
		const [keyed, bare] = [flows.steadyKeyed, flows.steadyCredentialHttpRequest];
		if (keyed !== undefined && bare !== undefined) lines.push(`    keyed Create / HTTP Request node alone (no key at all), execution p50: ${(keyed.executionMs.p50 / bare.executionMs.p50).toFixed(2)}`);
	}
	lines.push(...figures.problems.map((problem) => `  ${problem}`));
	return { lines, passed };
}
