/**
 * Check 1: shop orders posted concurrently to a Webhook -> Transaction › Create workflow in
 * queue mode. Every transaction reaches the service exactly once, every execution succeeds,
 * and the worker logs say which worker ran which execution.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ServiceDouble } from '../double/server';
import { finishedExecutions, type N8nInstance } from './cluster';
import { sql } from './postgres';
import { ORDERS_WEBHOOK_PATH, ORDERS_WORKFLOW_ID } from './workflows';

/** Orders per request, cycled: single orders mixed with several in one request. */
const REQUEST_SIZES = [1, 3, 1, 1, 5, 1, 2];
const REQUEST_LIMIT_MS = 60_000;
const FINISH_LIMIT_MS = 300_000;

export interface Order {
	id: string;
	email: string;
	total: number;
}

export interface OrdersFigures {
	orders: number;
	executions: number;
	/** From the first request sent to the end of the last execution (its `stoppedAt` in Postgres). */
	seconds: number;
	/** Executions each worker finished, by worker name. */
	byWorker: Record<string, number>;
}

function requestsOf(prefix: string, count: number): Order[][] {
	const requests: Order[][] = [];
	for (let next = 0, turn = 0; next < count; turn++) {
		const size = Math.min(REQUEST_SIZES[turn % REQUEST_SIZES.length], count - next);
		const orders = Array.from({ length: size }, (_, offset) => {
			const number = next + offset;
			return { id: `${prefix}-${number}`, email: `${prefix.toLowerCase()}-${number}@example.com`, total: 10 + (number % 90) };
		});
		requests.push(orders);
		next += size;
	}
	return requests;
}

/** Posts one request; returns what went wrong, if anything, so that every request is awaited. */
export async function post(url: string, orders: Order[]): Promise<string | undefined> {
	try {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify({ orders }),
			signal: AbortSignal.timeout(REQUEST_LIMIT_MS),
		});
		const text = await response.text();
		return response.status === 200 ? undefined : `HTTP ${response.status}: ${text.slice(0, 300)}`;
	} catch (error) {
		return String(error);
	}
}

/** Waits until `count` executions of the workflow after `afterId` have ended; returns them and when the last one stopped. */
export async function endedExecutions(postgresPort: number, afterId: number, count: number, workflowId = ORDERS_WORKFLOW_ID) {
	const deadline = Date.now() + FINISH_LIMIT_MS;
	const query =
		`SELECT id, status, round(extract(epoch FROM "stoppedAt") * 1000) FROM execution_entity ` +
		`WHERE "workflowId" = '${workflowId}' AND id > ${afterId} ORDER BY id`;
	for (;;) {
		const rows = await sql(postgresPort, query);
		const ended = rows.filter(([, status]) => status !== 'new' && status !== 'running');
		if ((rows.length >= count && ended.length === rows.length) || Date.now() > deadline) {
			return { executions: rows.map(([id, status]) => ({ id, status })), lastStopMs: Math.max(...ended.map(([, , stop]) => Number(stop))) };
		}
		await sleep(100);
	}
}

export async function highestExecutionId(postgresPort: number): Promise<number> {
	const [[id]] = await sql(postgresPort, 'SELECT coalesce(max(id), 0) FROM execution_entity');
	return Number(id);
}

/** Which workers' logs say they finished each execution; the log files may lag a moment behind. */
export async function workersOf(workers: N8nInstance[], ids: string[]): Promise<Map<string, string[]>> {
	const deadline = Date.now() + 15_000;
	for (;;) {
		const ranBy = new Map<string, string[]>();
		for (const worker of workers) {
			const finished = await finishedExecutions(worker);
			for (const id of ids) if (finished.has(id)) ranBy.set(id, [...(ranBy.get(id) ?? []), worker.name]);
		}
		if (ranBy.size === ids.length || Date.now() > deadline) return ranBy;
		await sleep(500);
	}
}

/**
 * Posts `count` orders at once (ids `<prefix>-<n>`) and checks the outcome; returns the figures.
 * `workers` are the workers running now; each must appear in the log as running executions.
 */
export async function runOrders(
	context: { double: ServiceDouble; postgresPort: number; main: N8nInstance; workers: N8nInstance[] },
	prefix: string,
	count: number,
): Promise<OrdersFigures> {
	const { double, postgresPort, main, workers } = context;
	const url = `http://127.0.0.1:${main.port}/webhook/${ORDERS_WEBHOOK_PATH}`;
	const requests = requestsOf(prefix, count);
	const before = await highestExecutionId(postgresPort);

	const startMs = Date.now();
	const failures = (await Promise.all(requests.map((orders) => post(url, orders)))).filter((failure) => failure !== undefined);
	assert.deepEqual(failures, [], `${failures.length} of ${requests.length} webhook requests failed`);
	const { executions, lastStopMs } = await endedExecutions(postgresPort, before, requests.length);
	const seconds = (lastStopMs - startMs) / 1000;
	assert.equal(executions.length, requests.length, `one execution per webhook request (${requests.length})`);
	const unsuccessful = executions.filter(({ status }) => status !== 'success');
	assert.deepEqual(unsuccessful, [], 'every webhook execution succeeded');

	const sent = double.transactions.queuedOrderIds().filter((id) => id?.startsWith(`${prefix}-`));
	const expected = requests.flat().map((order) => order.id);
	assert.equal(sent.length, expected.length, `the service received ${sent.length} transactions for ${expected.length} orders`);
	assert.deepEqual([...new Set(sent)].sort(), [...expected].sort(), 'every order reaches the service exactly once');

	const ranBy = await workersOf(workers, executions.map(({ id }) => id));
	const byWorker = Object.fromEntries(workers.map((worker) => [worker.name, [...ranBy.values()].filter((names) => names.includes(worker.name)).length]));
	const notOnOneWorker = executions.filter(({ id }) => ranBy.get(id)?.length !== 1).map(({ id }) => `${id}: ${ranBy.get(id)?.join('+') ?? 'no worker'}`);
	assert.deepEqual(notOnOneWorker, [], 'each execution ran on exactly one worker (worker logs)');
	for (const worker of workers) assert.ok(byWorker[worker.name] > 0, `${worker.name} ran none of the ${requests.length} executions`);

	return { orders: count, executions: requests.length, seconds, byWorker };
}
