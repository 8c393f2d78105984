/** The peak-load figures as lines, each saying what it counts; shared by test:peak and test:queue. */
import { percentile, plainAsExpected, type ScenarioFigures, sentEachOnce } from './judge';
import type { Variant } from './workflows';

const LABELS: Record<Variant, string> = {
	keyed: 'with key',
	plain: 'without key',
	strict: 'strict (Redis counter)',
};

const ms = (value: number) => `${Math.round(value)} ms`;

function requests({ total, byStatus }: ScenarioFigures['doubleRequests']): string {
	const statuses = Object.entries(byStatus)
		.map(([status, count]) => `${status}: ${count}`)
		.join(', ');
	return `${total} requests${total > 0 ? ` (${statuses})` : ''}`;
}

/** One variant's run of a scenario on one line, then the reasons of anything that failed. */
export function describeRun(figures: ScenarioFigures): string[] {
	const extras = [
		figures.missing > 0 ? `${figures.missing} deliveries without an execution` : '',
		figures.webhookProblems > 0 ? `${figures.webhookProblems} webhook POSTs not answered 200` : '',
		figures.unmatched > 0 ? `${figures.unmatched} orders with executions not matching their deliveries` : '',
		figures.misrouted.length > 0 ? `failed on purpose elsewhere than expected: ${figures.misrouted.join('; ')}` : '',
	].filter(Boolean);
	const workers =
		figures.byWorker === undefined
			? ''
			: `; ran on ${Object.entries(figures.byWorker)
					.map(([worker, count]) => `${worker} ${count}`)
					.join(', ')}, ${figures.ordersAcrossWorkers} orders on two workers`;
	const line =
		`  ${LABELS[figures.variant]}: ${figures.orders} orders, ${figures.deliveries} deliveries (first to last POST ${figures.sendingSeconds.toFixed(1)} s): ` +
		`doubled ${figures.doubled}, lost ${figures.lost}, failed executions ${figures.failed} of ${figures.executions}` +
		`${extras.length > 0 ? ` (${extras.join(', ')})` : ''}; ` +
		`webhook p50 ${ms(figures.webhookMs.p50)}, p95 ${ms(figures.webhookMs.p95)}; the double received ${requests(figures.doubleRequests)}${workers}`;
	return [line, ...figures.reasons.map((reason) => `    ${reason}`)];
}

export function scenarioHeading(figures: ScenarioFigures): string {
	return `(${figures.letter}) ${figures.title}`;
}

/** p95 of the keyed runs' POSTs over p95 of the runs without the key. */
export function p95Ratio(keyed: ScenarioFigures[], plain: ScenarioFigures[]): number {
	const p95 = (runs: ScenarioFigures[]) => percentile(runs.flatMap((run) => run.latenciesMs), 0.95);
	return p95(keyed) / p95(plain);
}

/** The p95 the key may cost: at most 1.5 times the webhook's p95 without it. */
const P95_GOAL = 1.5;

/** Every scenario's lines, and whether the keyed runs passed and the runs without the key checked out. */
export function describeScenarios(results: ScenarioFigures[], n8nVersion: string): { lines: string[]; passed: boolean; trusted: boolean } {
	if (results.length === 0) return { lines: [], passed: true, trusted: true };
	const keyed = results.filter((figures) => figures.variant === 'keyed');
	const plain = results.filter((figures) => figures.variant === 'plain');
	const lines = [`Figures (n8n ${n8nVersion}, regular mode, SQLite; webhook times are the shop's POSTs, Respond: Immediately):`];
	for (const figures of keyed) {
		const without = plain.find((candidate) => candidate.letter === figures.letter);
		lines.push(scenarioHeading(figures), ...describeRun(figures), ...(without === undefined ? [] : describeRun(without)));
		if (without !== undefined) lines.push(`  p95 with key / without: ${p95Ratio([figures], [without]).toFixed(2)}`);
	}
	const ratio = p95Ratio(keyed, plain);
	lines.push(`p95 with key / without, every scenario's POSTs together: ${ratio.toFixed(2)} (goal at most ${P95_GOAL}: ${ratio <= P95_GOAL ? 'met' : 'missed'})`);
	const failing = keyed.filter((figures) => !sentEachOnce(figures)).map((figures) => `(${figures.letter})`);
	const untrusted = plain.filter((figures) => !plainAsExpected(figures)).map((figures) => `(${figures.letter})`);
	if (untrusted.length > 0) lines.push(`The runs without the key did not queue each order once per delivery not refused in ${untrusted.join(' ')}: the figures are not to be trusted.`);
	if (failing.length > 0) lines.push(`With the key, orders were sent twice, lost, or executions failed in ${failing.join(' ')}.`);
	return { lines, passed: failing.length === 0, trusted: untrusted.length === 0 };
}
