import type { ScenarioFigures } from '../peak/judge';
import { describeRun, scenarioHeading } from '../peak/report';
import type { MainStop } from './cluster';
import type { OutageFigures } from '../peak/outage';
import { describeQueueCrashes, describeQueueOutage, type QueueCrashOutcome } from './crashes';
import type { HardKillFigures } from './hardKill';
import type { OrdersFigures } from './orders';
import { keyLimitsMeasured } from './peakScenarios';
import { describeQueueRush, type QueueRushOutcome } from './rush';
import type { TriggerFigures } from './trigger';

export interface Figures {
	n8nVersion: string;
	/** The running server's own version. */
	postgresVersion?: string;
	cores: number;
	/** Main instance and worker 1 started together, until both are ready. */
	startSeconds?: number;
	/** Each batch of orders: how many workers ran, how long the service took per request. */
	orders: Array<{ workers: number; serviceDelayMs: number; run: OrdersFigures }>;
	/** Resident memory of each n8n process after the two-worker run, now and at its peak. */
	memory?: Record<string, { rssMiB: number; peakMiB: number }>;
	trigger?: TriggerFigures;
	/** Each stop of the main instance for the trigger's restarts and the hard kill, in order. */
	mainStops: MainStop[];
	hardKill?: HardKillFigures;
	/** Each run of a peak-load scenario (with the Deduplication Key, or the strict arrangement), in run order. */
	peak: ScenarioFigures[];
	/** The rush across the workers against the account's request budget (rushRuns.ts). */
	rush?: QueueRushOutcome;
	/** The README's queue-mode setup through a killed worker and a stopped main instance (crashes.ts). */
	crashes?: QueueCrashOutcome;
	/** The README's queue-mode setup through an outage, and through n8n's workflow timeout (crashes.ts). */
	outage?: OutageFigures;
	timeout?: OutageFigures;
	stopSeconds?: number;
	processGroupsStopped?: number;
	/** Of those, groups with a process still alive after the stop (checked with signal 0). */
	processGroupsLeft?: number;
	totalSeconds?: number;
}

const fixed = (value: number, digits = 1) => value.toFixed(digits);

function throughput(label: string, run: OrdersFigures): string {
	const perWorker = Object.entries(run.byWorker)
		.map(([name, count]) => `${name} ${count}`)
		.join(', ');
	return (
		`${label}: ${run.orders} orders in ${run.executions} webhook executions, first request to last execution's end ${fixed(run.seconds)} s = ` +
		`${fixed(run.executions / run.seconds)} executions/s (${fixed(run.orders / run.seconds)} orders/s); ran on ${perWorker}`
	);
}

/** The figures docs/running-at-scale.md quotes, each saying what it measures. */
export function printFigures(figures: Figures, log: (line: string) => void): void {
	const lines = [`Figures of this run (n8n ${figures.n8nVersion} in queue mode, Postgres ${figures.postgresVersion ?? '(not started)'}, ${figures.cores} CPU cores shared by every process):`];
	if (figures.startSeconds !== undefined) lines.push(`main + worker 1 started and ready in ${fixed(figures.startSeconds)} s`);
	for (const { workers, serviceDelayMs, run } of figures.orders) {
		lines.push(throughput(`${workers} worker(s), service answering in ${serviceDelayMs} ms`, run));
	}
	for (const delay of new Set(figures.orders.map((batch) => batch.serviceDelayMs))) {
		const rate = (workers: number) => {
			const batch = figures.orders.find((candidate) => candidate.workers === workers && candidate.serviceDelayMs === delay);
			return batch === undefined ? Number.NaN : batch.run.executions / batch.run.seconds;
		};
		lines.push(`two workers / one worker, executions per second, service answering in ${delay} ms: ${fixed(rate(2) / rate(1), 2)}`);
	}
	for (const [name, memory] of Object.entries(figures.memory ?? {})) {
		lines.push(`memory of ${name} after the two-worker run: RSS ${memory.rssMiB} MiB, peak RSS ${memory.peakMiB} MiB`);
	}
	const trigger = figures.trigger;
	if (trigger) {
		lines.push(
			`trigger: ${trigger.blocksInAll} blocks (${trigger.blocksAroundRestarts} around ${trigger.restarts} SIGTERM restarts of main): ` +
				`${trigger.repeated} emitted twice, ${trigger.lost} lost`,
			`trigger: main restarts took ${trigger.mainStartSeconds.map((value) => fixed(value)).join(' s, ')} s until ready`,
			`trigger: block written -> item received by the workflow: median ${fixed(trigger.latency.median)} s, max ${fixed(trigger.latency.max)} s (polls every 10 s)`,
		);
	}
	for (const stop of figures.mainStops) {
		const waited = stop.waitedFor === undefined ? 'no "Waiting for N active executions"' : `"Waiting for ${stop.waitedFor} active executions"`;
		const said = stop.signal === 'SIGKILL' ? '' : `; main printed ${waited}`;
		lines.push(`main stopped by ${stop.signal} in ${fixed(stop.seconds)} s${said}; executions new, running or waiting in Postgres right after the signal: ${stop.unfinished}`);
	}
	const kill = figures.hardKill;
	if (kill) {
		lines.push(
			`hard kill: SIGKILL ${fixed(kill.killDelayMs, 2)} ms after a poll's answer left the service; state saved before the kill: ` +
				`${kill.stateSavedBeforeKill ? 'yes' : 'no'}; executions started before the kill: ${kill.executionsBeforeKill}; ` +
				`times each of its ${kill.blocks} blocks was emitted in all: ${kill.timesEmitted.join(', ')}`,
		);
	}
	figures.peak.forEach((run, index) => {
		if (figures.peak[index - 1]?.letter !== run.letter) lines.push(scenarioHeading(run));
		lines.push(...describeRun(run));
	});
	if (figures.peak.length > 0) lines.push(keyLimitsMeasured(figures.peak));
	if (figures.rush !== undefined) lines.push(...describeQueueRush(figures.rush));
	if (figures.crashes !== undefined) lines.push(...describeQueueCrashes(figures.crashes).lines);
	if (figures.outage !== undefined) lines.push(...describeQueueOutage(figures.outage, false).lines);
	if (figures.timeout !== undefined) lines.push(...describeQueueOutage(figures.timeout, true).lines);
	if (figures.stopSeconds !== undefined) {
		lines.push(`stopped ${figures.processGroupsStopped} process groups in ${fixed(figures.stopSeconds)} s; ${figures.processGroupsLeft ?? '?'} left running`);
	}
	if (figures.totalSeconds !== undefined) lines.push(`whole run: ${fixed(figures.totalSeconds)} s`);
	for (const line of lines) log(line);
}
