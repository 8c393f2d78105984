/**
 * The one place that says how hard test:peak's rush pushes, per n8n release (issue 35): a shop
 * delivering orders far faster than the account's request budget. n8n 2.41.1 costs about three
 * times the CPU per webhook execution of 2.8.4 on the two cores this runs on, so it gets half
 * the orders per second against half the budget: the same ten orders per request the account
 * allows, without measuring mainly a saturated machine. The steady state runs at 20 orders a
 * second on every release, as the key's cost was first measured; on two cores n8n 2.41.1 cannot
 * keep up with that (two flows at some 120 ms of CPU an execution), so there its p50s measure the
 * backlog, and its CPU ratios are the figures to read.
 */
import type { BudgetSettings } from '../double/budget';

/** The account's budget in the double: its rate, burst and Retry-After always given, refusing with 429 unless a flow says otherwise. */
type Budget = Required<Omit<BudgetSettings, 'status'>>;

export interface RushSettings {
	/** Orders of one rush flow, one per webhook call. */
	orders: number;
	/** How fast the shop delivers them. */
	ordersPerSecond: number;
	/** The account's budget in the double, fresh for each flow; also the paced credential's maxRequestsPerSecond. */
	budget: Budget;
	/** The keyed flow at a shop's steady state: orders first delivered to fill its key history, in batches. */
	steadyFillOrders: number;
	steadyFillBatch: number;
	/** Then these orders at this rate, keyed Create and the HTTP Request node each, no budget. */
	steadyOrders: number;
	steadyOrdersPerSecond: number;
	/** A nightly bulk beside the shop's orders, on one account. */
	bulk: {
		/** Orders of the one bulk execution, sent with these Create options. */
		orders: number;
		maxRequestBytes: number;
		maxWaitSeconds: number;
		/** How fast the service reads and queues a request. */
		msPerMegabyte: number;
		/** One-order executions arriving this long after the bulk, at this rate. */
		small: { orders: number; afterMs: number; perSecond: number };
		budget: Budget;
	};
	/** Keyed Create at a rush, n8n killed and started again mid-way, then what failed or crashed retried as n8n's Retry does. */
	crash: { orders: number; ordersPerSecond: number; killAfterMs: number; budget: Budget };
	/** The same, n8n stopped (SIGTERM) instead, on a budget slow enough that orders still wait when n8n's graceful shutdown (30 s) ends. */
	stop: { orders: number; ordersPerSecond: number; killAfterMs: number; budget: Budget };
	/**
	 * Keyed Create at a rush with n8n's workflow timeout (Settings › Timeout Workflow) shorter
	 * than the account's pause, and a few executions stopped from n8n's REST API meanwhile; then,
	 * with the budget lifted, what failed or timed out (not what was stopped) retried as n8n's Retry does.
	 */
	timeout: { orders: number; ordersPerSecond: number; executionTimeoutSeconds: number; stops: number; stopAfterMs: number; budget: Budget };
	/** Keyed Create while the service answers 503 for longer than its Max Wait Seconds; then what failed retried as n8n's Retry does. */
	/** `holdMs`: for that long from the outage's start the service holds every answer (then the 503s it owes), as a service too slow for n8n's workflow timeout. */
	outage: { orders: number; ordersPerSecond: number; maxWaitSeconds: number; outageMs: number; holdMs?: number };
}

const AT_2_8: RushSettings = {
	orders: 400,
	ordersPerSecond: 40,
	budget: { rate: 4, burst: 4, retryAfter: '1' },
	// The default Deduplication History Size (10,000 keys) holds 20,000 entries: each key and its "sent" mark.
	steadyFillOrders: 10_000,
	steadyFillBatch: 1_000,
	steadyOrders: 500,
	steadyOrdersPerSecond: 20,
	// 20 s per MB: each request of 200,000 bytes takes 4 s, so the bulk lasts well past Max Wait Seconds.
	bulk: {
		orders: 20_000,
		maxRequestBytes: 200_000,
		maxWaitSeconds: 20,
		msPerMegabyte: 20_000,
		small: { orders: 100, afterMs: 3_000, perSecond: 10 },
		budget: { rate: 4, burst: 4, retryAfter: '1' },
	},
	// A long Retry-After keeps orders waiting in the account's pause when n8n dies.
	crash: { orders: 400, ordersPerSecond: 40, killAfterMs: 6_000, budget: { rate: 4, burst: 4, retryAfter: '10' } },
	// A budget that gives back one request every 33 s: the probe after the first pause (30 s at most) is refused again, so orders still wait when n8n's graceful shutdown (30 s) ends.
	stop: { orders: 400, ordersPerSecond: 40, killAfterMs: 6_000, budget: { rate: 0.03, burst: 4, retryAfter: '45' } },
	// A pause (30 s) longer than the timeout (20 s, of the kind the docs advise: far above a send's length): the orders still wait at Create's deadline 5 s before it, and their executions fail.
	timeout: { orders: 400, ordersPerSecond: 40, executionTimeoutSeconds: 20, stops: 10, stopAfterMs: 2_000, budget: { rate: 4, burst: 4, retryAfter: '30' } },
	outage: { orders: 100, ordersPerSecond: 10, maxWaitSeconds: 5, outageMs: 30_000 },
};

const BY_RELEASE: Record<string, RushSettings> = {
	'2.8.4': AT_2_8,
	'1.123.50': AT_2_8,
	'2.41.1': {
		...AT_2_8,
		ordersPerSecond: 20,
		budget: { rate: 2, burst: 2, retryAfter: '1' },
		crash: { ...AT_2_8.crash, ordersPerSecond: 20, budget: { rate: 2, burst: 2, retryAfter: '10' } },
		stop: { ...AT_2_8.stop, ordersPerSecond: 20, budget: { rate: 0.03, burst: 2, retryAfter: '45' } },
		// At 10 webhooks a second n8n 2.41.1 itself started executions some 6 s after their webhook, past the timeout; at 4, the store's calls (0.3 to 1.5 s each on two busy cores) still took most orders past it.
		timeout: { ...AT_2_8.timeout, orders: 200, ordersPerSecond: 20, budget: { rate: 2, burst: 2, retryAfter: '30' } },
	},
};

/**
 * Judged: Create's executions may take at most this long at p95. On 2026-11-28 n8n 2.41.1 here
 * took 100 to 140 ms of CPU per execution of every flow, n8n's HTTP Request node's included (20
 * to 30 ms before), more than two cores give 40 webhooks a second: executions then wait in n8n
 * itself, and the p95 of a rush the sender kept to one refusal was 10.8 s.
 */
export const RUSH_P95_LIMIT_MS = 20_000;
/**
 * Judged at the steady state in one run, each of Create's flows against what a user builds from
 * n8n's own nodes for the same promise: keyed Create against Remove Duplicates before the HTTP
 * Request node with a Header Auth credential, Create without the key against that HTTP Request
 * node alone. CPU per order (of n8n's process group) at most `cpuRatio` times the peer's; printed,
 * the execution p50 at most `p50Times` times the peer's; with no history yet, and with both
 * histories full (every call rewrites the node's whole row), the same limits.
 */
export const STEADY_LIMITS = { cpuRatio: 1.1, p50Times: 2 } as const;
/**
 * Judged: the one-order executions beside the bulk may take at most this long at p95; the goal is
 * printed. With n8n's CPU per execution as above, the p95 was 5.3 s on 2026-11-28.
 */
export const BULK_SMALL_P95_LIMIT_MS = 10_000;
export const BULK_SMALL_P95_GOAL_MS = 1_000;
/** Judged: the bulk's sending, from its first request to the end of its last, may take at most this much longer than the service took to read its requests. */
export const BULK_SLOWDOWN_LIMIT = 1.1;

export function rushSettingsFor(n8nVersion: string): RushSettings {
	return BY_RELEASE[n8nVersion] ?? AT_2_8;
}
