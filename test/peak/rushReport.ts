/**
 * The rush's figures as lines, one flow per line, and its verdict: Create, keyed Create, Create
 * in two workflows and Create with the budget in its credential must send every order exactly
 * once with no execution failing, have at most 5% of their accepted requests refused plus one
 * per n8n process (each process's first lesson of the account's pace, issue 43), and end an
 * execution within 10 s at p95; the paced one must not be refused at all. The HTTP Request node
 * is there for comparison only. Under n8n's production concurrency limit, which holds an
 * execution's place for as long as it lasts, keyed Create's rush must end within
 * `KEYED_RUSH_LIMIT` times unkeyed Create's, and Create right after (e) on a doubled budget
 * must use at least `GROWN_BUDGET_USE` of it (without the limit a request carries every waiting
 * order, and the rush needs less than the budget: printed only).
 */
import { seconds } from '../../nodes/MailingPlatform/helpers/numbers';
import type { RushFigures } from './rush';
import { RUSH_P95_LIMIT_MS, type RushSettings } from './rushSettings';
import { RUSH_FLOW_LABELS, type RushFlow } from './rushWorkflows';

const JUDGED: ReadonlySet<string> = new Set<RushFlow>(['create', 'createKeyed', 'createPaced', 'createTwoWorkflows', 'createGrownBudget']);
const MUST_NOT_BE_REFUSED: ReadonlySet<string> = new Set<RushFlow>(['createPaced']);

/** Refused requests a flow may have: this share of its accepted ones, plus one per n8n process (its first lesson). */
const REFUSED_SHARE = 0.05;

/** Under a concurrency limit: keyed Create's rush ends at most this many times later than Create's. */
const KEYED_RUSH_LIMIT = 1.2;

/** When the first refusals came, after the rush's first request. */
const refusedAt = ({ refusedAtSeconds }: RushFigures) =>
	refusedAtSeconds.length === 0 ? '' : ` (refused at ${refusedAtSeconds.slice(0, 8).map((at) => at.toFixed(2)).join(', ')}${refusedAtSeconds.length > 8 ? ', ...' : ''} s)`;

/** The most requests a flow's `processes` n8n processes may have had refused, for its accepted requests. */
function refusalsAllowed(figures: RushFigures, processes: number): number {
	return Math.floor(REFUSED_SHARE * figures.requestsAccepted + processes);
}

/** What broke the flow's promise, sent by `processes` n8n processes; empty when nothing did or the flow is not judged. */
export function rushFailures(figures: RushFigures, processes: number): string[] {
	if (!JUDGED.has(figures.flow)) return [];
	return [
		figures.queuedNever > 0 ? `${figures.queuedNever} orders lost` : '',
		figures.queuedTwice > 0 ? `${figures.queuedTwice} orders doubled` : '',
		figures.failed > 0 ? `${figures.failed} executions failed` : '',
		figures.webhookProblems > 0 ? `${figures.webhookProblems} POSTs not answered 200` : '',
		figures.executions < figures.orders ? `${figures.orders - figures.executions} orders without an execution` : '',
		figures.requestsRefused > refusalsAllowed(figures, processes)
			? `${figures.requestsRefused} requests refused for ${figures.requestsAccepted} accepted, over 5% + ${processes} (${refusalsAllowed(figures, processes)})`
			: '',
		!(figures.executionMs.p95 <= RUSH_P95_LIMIT_MS) ? `execution p95 ${seconds(figures.executionMs.p95)} over ${seconds(RUSH_P95_LIMIT_MS)}` : '',
		MUST_NOT_BE_REFUSED.has(figures.flow) && figures.requestsRefused > 0 ? `${figures.requestsRefused} requests refused though paced to the budget` : '',
	].filter(Boolean);
}

/** One flow's figures on one line, with its verdict when judged (`failures` given), then the reasons of what failed. */
export function rushFlowLines(figures: RushFigures, label: string, failures: string[] | undefined): string[] {
	const cpu = figures.cpuPerOrderMs === undefined ? '' : `; CPU per order ${figures.cpuPerOrderMs.toFixed(1)} ms`;
	const other = figures.postsOther > 0 ? `, ${figures.postsOther} other` : '';
	const verdict = failures === undefined ? '' : `: ${failures.length === 0 ? 'passed' : `FAILED (${failures.join(', ')})`}`;
	return [
		`  ${label}: queued once ${figures.queuedOnce}, twice ${figures.queuedTwice}, never ${figures.queuedNever}; ` +
			`failed executions ${figures.failed} of ${figures.executions}; POSTs accepted ${figures.postsAccepted}, refused (429) ${figures.postsRefused}${other}; ` +
			`refused / accepted requests, warm-up included, ${figures.requestsRefused} / ${figures.requestsAccepted}${refusedAt(figures)}; ` +
			`execution p50 ${seconds(figures.executionMs.p50)}, p95 ${seconds(figures.executionMs.p95)}${cpu}; all ended ${figures.wallSeconds.toFixed(0)} s after the first POST${verdict}`,
		...figures.reasons.map((reason) => `    ${reason}`),
	];
}

export function rushHeading(settings: RushSettings, where: string): string {
	const { rate, burst, retryAfter } = settings.budget;
	return `Rush (${where}): ${settings.orders} orders per flow, one per webhook call, at ${settings.ordersPerSecond} per second; the account's budget ${rate} requests per second, burst ${burst}, 429 with Retry-After ${retryAfter} beyond it:`;
}

/** Keyed Create's rush against Create's, where n8n's concurrency limit makes an execution's duration its throughput. */
function keyedAgainstUnkeyed(results: RushFigures[], concurrencyLimit: number): { line: string; passed: boolean } | undefined {
	const unkeyed = results.find((figures) => figures.flow === 'create');
	const keyed = results.find((figures) => figures.flow === 'createKeyed');
	if (unkeyed === undefined || keyed === undefined) return undefined;
	const ratio = keyed.wallSeconds / unkeyed.wallSeconds;
	const passed = ratio <= KEYED_RUSH_LIMIT;
	const line = `  With n8n's production concurrency limit ${concurrencyLimit}: keyed Create's rush all ended ${keyed.wallSeconds.toFixed(1)} s after its first POST, Create's ${unkeyed.wallSeconds.toFixed(1)} s: ${ratio.toFixed(2)} (at most ${KEYED_RUSH_LIMIT}: ${passed ? 'met' : 'MISSED'})`;
	return { line, passed };
}

/**
 * How much of its doubled budget the rush after (e) used, from its first request to its last
 * accepted one. Printed, not judged: the learned pace keeps fairness before regrowth speed, and
 * finds a grown budget once the two minutes it remembers a pace have lapsed, which (f) does not wait for.
 */
function grownBudgetUse(results: RushFigures[]): string | undefined {
	const grown = results.find((figures) => figures.flow === 'createGrownBudget');
	if (grown === undefined) return undefined;
	const share = grown.acceptedPerSecond / grown.budgetRate;
	return `  (f) used ${grown.acceptedPerSecond.toFixed(1)} requests a second of its budget of ${grown.budgetRate}: ${share.toFixed(2)} (not judged: a grown budget is found once the learned pace's two minutes lapse)`;
}

export function describeRush(results: RushFigures[], settings: RushSettings, concurrencyLimit?: number): { lines: string[]; passed: boolean } {
	const where = concurrencyLimit === undefined ? 'regular mode' : `regular mode, production concurrency limit ${concurrencyLimit}`;
	const lines = [rushHeading(settings, where)];
	let passed = true;
	for (const figures of results) {
		// One n8n process in regular mode.
		const failures = rushFailures(figures, 1);
		passed &&= failures.length === 0;
		lines.push(...rushFlowLines(figures, RUSH_FLOW_LABELS[figures.flow as RushFlow], JUDGED.has(figures.flow) ? failures : undefined));
	}
	const compared = concurrencyLimit === undefined ? undefined : keyedAgainstUnkeyed(results, concurrencyLimit);
	if (compared !== undefined) lines.push(compared.line);
	const grown = grownBudgetUse(results);
	if (grown !== undefined) lines.push(grown);
	return { lines, passed: passed && (compared?.passed ?? true) };
}
