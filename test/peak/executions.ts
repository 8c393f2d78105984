/**
 * What n8n recorded of a workflow's executions, read from its database (SQLite in regular mode,
 * Postgres in queue mode; each mode brings its own `ExecutionStore`): each execution's status,
 * the order its webhook received, and the errors its nodes threw. A node set to continue on its
 * error output still records the error it threw, while the execution counts as a success; such
 * an execution failed all the same, so both are read.
 */
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';

import { n8nBin } from '../../scripts/n8n';

export interface ExecutionRow {
	id: string;
	status: string;
	/** The execution this one retried, where n8n's Retry made it. */
	retryOf?: string;
	/** n8n's startedAt, in ms since the epoch, once it started the execution. */
	startedAtMs?: number;
}

export interface ExecutionStore {
	/** Every execution of the workflow, ended or not. */
	list(workflowId: string): Promise<ExecutionRow[]>;
	/** The run data of each execution as n8n stores it (flatted JSON text), by execution id. */
	runData(ids: string[]): Promise<Map<string, string>>;
	/** How long each ended execution of the workflow ran, from n8n's startedAt to its stoppedAt, in milliseconds, by execution id. */
	durationsMs(workflowId: string): Promise<Map<string, number>>;
}

export interface ExecutionOutcome {
	id: string;
	status: string;
	/** `body.id` of what the webhook received: the order this execution handled. */
	orderId?: string;
	/** "<node>: <message>" for every node that threw. */
	nodeErrors: string[];
	/** "<node>: <error or message>" for every item a node skipped or put out as an error: why an order was not sent. */
	itemNotes: string[];
	/** When each node that ran first started, in ms after n8n's startedAt: n8n's timeout counts from that start. */
	nodeStartsMs: Record<string, number>;
}

const UNFINISHED = new Set(['new', 'running', 'waiting']);

/** Waits until `count` executions of the workflow (those `counted`) exist and all have ended, or `limitMs` passed; returns them. */
export async function waitUntilEnded(store: ExecutionStore, workflowId: string, count: number, limitMs: number, counted: (row: ExecutionRow) => boolean = () => true): Promise<ExecutionRow[]> {
	const deadline = Date.now() + limitMs;
	for (;;) {
		const rows = (await store.list(workflowId)).filter(counted);
		const ended = rows.length >= count && rows.every((row) => !UNFINISHED.has(row.status));
		if (ended || Date.now() > deadline) return rows;
		await sleep(250);
	}
}

interface TaskData {
	/** When the node's run started, in ms since the epoch. */
	startTime?: number;
	error?: { message?: string };
	executionStatus?: string;
	data?: { main?: Array<Array<{ json?: { body?: { id?: unknown }; skipped?: unknown; error?: unknown; message?: unknown } }> | null> };
}
interface RunExecutionData {
	resultData?: { error?: { message?: string }; runData?: Record<string, TaskData[]> };
	/** What was left to run: an execution stopped before its webhook node ran (n8n 2.41.1) keeps the order here only. */
	executionData?: { nodeExecutionStack?: Array<{ node?: { name?: string }; data?: TaskData['data'] }> };
}

/** n8n stores run data with `flatted` (it keeps shared references); its own copy reads it. */
function parseFlatted(text: string): RunExecutionData {
	const flatted = createRequire(n8nBin())('flatted') as { parse: (text: string) => unknown };
	return flatted.parse(text) as RunExecutionData;
}

/** Reads what each execution of the workflow did; `webhookNode` names the node whose output holds the order. */
export async function readOutcomes(store: ExecutionStore, workflowId: string, webhookNode: string): Promise<ExecutionOutcome[]> {
	const rows = await store.list(workflowId);
	const data = await store.runData(rows.map((row) => row.id));
	return rows.map(({ id, status, startedAtMs }) => {
		const text = data.get(id);
		if (text === undefined) return { id, status, nodeErrors: ['(no run data stored)'], itemNotes: [], nodeStartsMs: {} };
		const { resultData, executionData } = parseFlatted(text);
		const runData = resultData?.runData ?? {};
		const waiting = executionData?.nodeExecutionStack?.find((entry) => entry.node?.name === webhookNode);
		const orderId = (runData[webhookNode]?.[0]?.data ?? waiting?.data)?.main?.[0]?.[0]?.json?.body?.id;
		const nodeErrors = Object.entries(runData).flatMap(([node, tasks]) =>
			tasks.filter((task) => task.error !== undefined || task.executionStatus === 'error').map((task) => `${node}: ${task.error?.message ?? 'error'}`),
		);
		if (nodeErrors.length === 0 && resultData?.error !== undefined) nodeErrors.push(`workflow: ${resultData.error.message ?? 'error'}`);
		const itemNotes = Object.entries(runData).flatMap(([node, tasks]) =>
			tasks.flatMap((task) => (task.data?.main ?? []).flatMap((items) => items ?? []))
				.filter(({ json }) => json?.skipped === true || json?.error !== undefined)
				.map(({ json }) => `${node}: ${[json?.error, json?.message].filter((text) => typeof text === 'string').join(' ')}`),
		);
		const nodeStartsMs = Object.fromEntries(
			Object.entries(runData).flatMap(([node, tasks]) => (startedAtMs !== undefined && typeof tasks[0]?.startTime === 'number' ? [[node, tasks[0].startTime - startedAtMs]] : [])),
		);
		return { id, status, orderId: orderId === undefined ? undefined : String(orderId), nodeErrors, itemNotes, nodeStartsMs };
	});
}

/** What an execution said of its order: the errors nodes threw, and the items skipped or failed. */
export const notesOf = (outcome: ExecutionOutcome) => [...outcome.nodeErrors, ...outcome.itemNotes];

/** What n8n recorded of the executions of order `id`: why it was not sent. */
export function whatBecameOf(id: string, outcomes: readonly ExecutionOutcome[]): string {
	const seen = outcomes
		.filter((outcome) => outcome.orderId === id)
		.map((outcome) => `execution ${outcome.id} ${outcome.status}: ${notesOf(outcome).join('; ') || 'nothing failed or skipped'}`.slice(0, 400));
	return `${id}: ${seen.join(' | ') || 'no execution n8n kept names it (its input erased, or never recorded)'}`.slice(0, 2000);
}

/**
 * Per execution of the workflow: its status and the items each node put out, per output ("Node
 * 3/1"), in the order the nodes ran; for the nodes `shown` names, also what it picks of each item.
 */
export async function readItemCounts(store: ExecutionStore, workflowId: string, shown: Record<string, (json: Record<string, unknown>) => unknown> = {}): Promise<string[]> {
	const rows = await store.list(workflowId);
	const data = await store.runData(rows.map((row) => row.id));
	return rows.map(({ id, status }) => {
		const text = data.get(id);
		const runData = text === undefined ? {} : (parseFlatted(text).resultData?.runData ?? {});
		const counts = Object.entries(runData).map(([node, tasks]) => {
			const picked = shown[node] === undefined ? '' : ` [${tasks.flatMap((task) => (task.data?.main ?? []).flatMap((items) => (items ?? []).map(({ json }) => String(shown[node]((json ?? {}) as Record<string, unknown>))))).join(' ')}]`;
			return `${node} ${tasks.map((task) => (task.error === undefined ? (task.data?.main ?? []).map((items) => items?.length ?? 0).join('/') : `error: ${task.error.message}`)).join(', ')}${picked}`;
		});
		return `execution ${id} ${status}: ${counts.join('; ')}`;
	});
}

/** How the given executions ended, counted by status. */
export function tally(statuses: string[]): Record<string, number> {
	const counts: Record<string, number> = {};
	for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
	return counts;
}

/**
 * Waits while the README's retry (examples/retry-orders-not-sent.json, published) works on its
 * own: until `settled` says the scenario's orders are where they can be, or `limitMs` passed,
 * then until every execution `counted` takes has ended. Returns those executions.
 */
export async function whileRetrying(store: ExecutionStore, workflowId: string, { counted, settled, limitMs }: { counted: (row: ExecutionRow) => boolean; settled: () => boolean | Promise<boolean>; limitMs: number }): Promise<ExecutionRow[]> {
	const deadline = Date.now() + limitMs;
	while (!(await settled()) && Date.now() < deadline) await sleep(1000);
	return await waitUntilEnded(store, workflowId, 0, limitMs, counted);
}

/** Executions that ended failed, crashed or cancelled and that no execution retried: what the retry left. */
export function leftUnretried(rows: readonly ExecutionRow[], retryable: (row: ExecutionRow) => boolean): ExecutionRow[] {
	const retried = new Set(rows.map((row) => row.retryOf).filter((id) => id !== undefined));
	return rows.filter((row) => retryable(row) && !retried.has(row.id));
}
