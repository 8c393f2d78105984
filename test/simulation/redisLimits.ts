/**
 * What the checks (checks.ts) read of queue mode's Redis design: its two limits in n8n, which
 * excuse `lost` only where they struck the order and nothing after could save it, and where each
 * case was struck, for the run to count per position the cases that lost an order.
 */
import type { Execution, World } from './world';

const ordersOf = (execution: Execution) => execution.delivery.orders;

/**
 * The Redis design's limits in n8n (docs/development.md, The Simulation of Sending): the webhook
 * answers the shop before any node runs, so a worker killed before Keep Until Decided loses that
 * delivery (the shop's, or the redelivery's, which forgets the old record once its POST is
 * answered); and n8n's Redis node sends Count Deliveries' EXPIRE as a command of its own after
 * INCR, so a worker killed between them leaves the counter with no time to live: every later
 * delivery of the order counts more than 1 and forgets itself.
 */
const KILLED_BEFORE_KEEP = 'a worker killed before Keep Until Decided';
const COUNTER_WITHOUT_TTL = "a worker killed between Count Deliveries' INCR and its EXPIRE";

/** Whether a kill took an execution of `order` at one of the Redis design's limits, and no delivery of it reached Create after. */
export function redisKillLimitOf(world: World, order: string): string | undefined {
	const ofOrder = world.executions.filter((execution) => execution.delivery.orders.includes(order));
	for (const { killedAtMs, workflow } of ofOrder) {
		if (killedAtMs === undefined || (workflow?.at !== 'keep' && workflow?.at !== 'expire')) continue;
		if (ofOrder.some((other) => other.workflow?.reachedCreate === true && (other.startedAtMs ?? 0) >= killedAtMs)) continue;
		return workflow.at === 'keep' ? KILLED_BEFORE_KEEP : COUNTER_WITHOUT_TTL;
	}
	return undefined;
}

/**
 * Where the Redis design's case was struck, each with the orders struck: per execution a kill
 * took, the step it was at (before it, or during Create), and a kill between the redelivery's
 * POST and its DEL; a user's stop; n8n's timeout during Create or at the node after it.
 */
export function positionsOf(world: World): Array<{ position: string; orders: string[] }> {
	if (world.simulated.redisRecipe === undefined) return [];
	const positions = new Map<string, string[]>();
	const add = (position: string, orders: readonly string[]) => positions.set(position, [...(positions.get(position) ?? []), ...orders]);
	for (const { atStep, order } of world.record.kills) if (atStep === 'redeliveredDel' && order !== undefined) add('a kill before redeliveredDel', [order]);
	for (const execution of world.executions) {
		const { workflow, killedAtMs, cancelledBy, returnedAtMs, cancelledAtMs = 0 } = execution;
		if (workflow === undefined) continue;
		if (killedAtMs !== undefined) add(workflow.reachedCreate && returnedAtMs === undefined ? 'a kill during Create' : `a kill before ${workflow.at}`, ordersOf(execution));
		if (cancelledBy === 'user') add('a user stop', ordersOf(execution));
		if (cancelledBy === 'timeout' && workflow.reachedCreate) add(returnedAtMs !== undefined && returnedAtMs <= cancelledAtMs ? "n8n's timeout right after Create" : "n8n's timeout during Create", ordersOf(execution));
	}
	if (positions.size === 0) add('no kill, stop or timeout', world.executions.flatMap(ordersOf));
	return [...positions].map(([position, orders]) => ({ position, orders }));
}
