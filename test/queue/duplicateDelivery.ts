/**
 * Check 4: the Deduplication Key in queue mode. Executions run on two workers; the node's
 * history is n8n's deduplication store, one row in Postgres that every execution reads whole
 * and writes back whole, without a lock. Asserted: an order delivered twice, the second time
 * after the first execution ended, reaches the service once. Measured, not promised: orders
 * delivered twice at the same moment, and different orders at the same moment whose keys may
 * overwrite each other.
 */
import assert from 'node:assert/strict';

import type { ServiceDouble } from '../double/server';
import type { N8nInstance } from './cluster';
import { endedExecutions, highestExecutionId, type Order, post, workersOf } from './orders';
import { KEYED_ORDERS } from './workflows';

/** Distinct orders in each measurement. */
const ORDERS = 20;

export interface DuplicateDeliveryFigures {
	/** One order, delivered again after its first execution ended. */
	sequential: { timesSent: number; statuses: string[]; workers: string[] };
	/** `orders` orders, each delivered twice at the same moment (two HTTP calls at once). */
	simultaneous: {
		orders: number;
		sentTwice: number;
		sentOnce: number;
		/** Pairs whose two executions ran on two workers, and of those the orders sent twice. */
		pairsOnTwoWorkers: number;
		sentTwiceOnTwoWorkers: number;
		/** Executions that ended other than successfully (a failed write of the history, say). */
		unsuccessful: number;
	};
	/** `orders` different orders at the same moment, then all of them again in one later delivery. */
	distinct: { orders: number; sentAgain: number; unsuccessful: number };
}

interface Context {
	double: ServiceDouble;
	postgresPort: number;
	main: N8nInstance;
	workers: N8nInstance[];
}

const order = (id: string, index: number): Order => ({ id, email: `${id.toLowerCase()}@example.com`, total: 10 + index });

/** Posts every request at once to the keyed workflow's webhook; returns its executions, with the worker that ran each. */
async function deliver(context: Context, requests: Order[][]) {
	const before = await highestExecutionId(context.postgresPort);
	const url = `http://127.0.0.1:${context.main.port}/webhook/${KEYED_ORDERS.webhookPath}`;
	const failures = (await Promise.all(requests.map((orders) => post(url, orders)))).filter((failure) => failure !== undefined);
	assert.deepEqual(failures, [], `${failures.length} of ${requests.length} webhook requests failed`);
	const { executions } = await endedExecutions(context.postgresPort, before, requests.length, KEYED_ORDERS.workflowId);
	assert.equal(executions.length, requests.length, 'one execution per webhook request');
	const ranBy = await workersOf(context.workers, executions.map(({ id }) => id));
	return executions.map((execution) => ({ ...execution, worker: ranBy.get(execution.id)?.join('+') ?? 'unknown' }));
}

const timesSent = (double: ServiceDouble, id: string) => double.transactions.queuedOrderIds().filter((queued) => queued === id).length;

export async function runDuplicateDelivery(context: Context): Promise<DuplicateDeliveryFigures> {
	const { double } = context;
	const once = order('KEY-SEQ-1', 0);
	const first = await deliver(context, [[once]]);
	const second = await deliver(context, [[once]]);
	const sequential = {
		timesSent: timesSent(double, once.id),
		statuses: [...first, ...second].map((execution) => execution.status),
		workers: [...first, ...second].map((execution) => execution.worker),
	};

	const simultaneous = { orders: ORDERS, sentTwice: 0, sentOnce: 0, pairsOnTwoWorkers: 0, sentTwiceOnTwoWorkers: 0, unsuccessful: 0 };
	for (let index = 1; index <= ORDERS; index++) {
		const pair = order(`KEY-PAIR-${index}`, index);
		const executions = await deliver(context, [[pair], [pair]]);
		const times = timesSent(double, pair.id);
		assert.ok(times <= 2, `${pair.id} reached the service ${times} times from two deliveries`);
		const onTwoWorkers = new Set(executions.map((execution) => execution.worker)).size === 2;
		simultaneous.sentTwice += times === 2 ? 1 : 0;
		simultaneous.sentOnce += times === 1 ? 1 : 0;
		simultaneous.pairsOnTwoWorkers += onTwoWorkers ? 1 : 0;
		simultaneous.sentTwiceOnTwoWorkers += onTwoWorkers && times === 2 ? 1 : 0;
		simultaneous.unsuccessful += executions.filter((execution) => execution.status !== 'success').length;
	}

	const distinctOrders = Array.from({ length: ORDERS }, (_, index) => order(`KEY-DISTINCT-${index + 1}`, index));
	const together = await deliver(context, distinctOrders.map((distinct) => [distinct]));
	const again = await deliver(context, [distinctOrders]);
	const distinct = {
		orders: ORDERS,
		sentAgain: distinctOrders.filter((distinctOrder) => timesSent(double, distinctOrder.id) > 1).length,
		unsuccessful: [...together, ...again].filter((execution) => execution.status !== 'success').length,
	};
	return { sequential, simultaneous, distinct };
}

/** What is promised: a repeated delivery after the first one's execution ended is not sent again. */
export function checkDuplicateDelivery(figures: DuplicateDeliveryFigures): void {
	assert.deepEqual(figures.sequential.statuses, ['success', 'success'], 'both executions of the repeated order succeeded');
	assert.equal(figures.sequential.timesSent, 1, 'an order delivered twice, one delivery after the other, reaches the service once');
}
