/**
 * The one place that says how hard test:peak's rush pushes, per n8n release (issue 35): a shop
 * delivering orders far faster than the account's request budget. n8n 2.41.1 costs about three
 * times the CPU per webhook execution of 2.8.4 on the two cores this runs on, so it gets half
 * the orders per second against half the budget: the same ten orders per request the account
 * allows, without measuring mainly a saturated machine.
 */
import type { BudgetSettings } from '../double/budget';

export interface RushSettings {
	/** Orders of one rush flow, one per webhook call. */
	orders: number;
	/** How fast the shop delivers them. */
	ordersPerSecond: number;
	/** The account's budget in the double, fresh for each flow; also the paced credential's maxRequestsPerSecond. */
	budget: Required<BudgetSettings>;
	/** The keyed flow at a shop's steady state: orders first delivered to fill its key history, in batches. */
	steadyFillOrders: number;
	steadyFillBatch: number;
	/** Then these orders at this rate, keyed Create and the HTTP Request node each, no budget. */
	steadyOrders: number;
	steadyOrdersPerSecond: number;
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
};

const BY_RELEASE: Record<string, RushSettings> = {
	'2.8.4': AT_2_8,
	'1.123.50': AT_2_8,
	'2.41.1': { ...AT_2_8, ordersPerSecond: 20, budget: { rate: 2, burst: 2, retryAfter: '1' } },
};

/** Judged: Create's executions may take at most this long at p95. */
export const RUSH_P95_LIMIT_MS = 10_000;
/** Printed: keyed Create's p50 over the HTTP Request node's at the steady state, against this goal. */
export const STEADY_P50_RATIO_GOAL = 5;

export function rushSettingsFor(n8nVersion: string): RushSettings {
	return BY_RELEASE[n8nVersion] ?? AT_2_8;
}
