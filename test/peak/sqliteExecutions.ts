/**
 * Executions in the SQLite database of a running n8n in regular mode. n8n 2.x opens it in WAL
 * mode, so a second, read-only connection neither blocks n8n's writes nor is blocked by them.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { n8nBin } from '../../scripts/n8n';
import type { ExecutionRow, ExecutionStore } from './executions';

interface SqliteDatabase {
	all(sql: string, params: unknown[], callback: (error: Error | null, rows: Array<Record<string, unknown>>) => void): void;
	close(callback: () => void): void;
}
interface Sqlite3 {
	OPEN_READONLY: number;
	Database: new (file: string, mode: number, callback: (error: Error | null) => void) => SqliteDatabase;
}

/** Opens n8n's database in `userFolder` read-only, with n8n's own sqlite3 module. */
export async function openSqliteExecutions(userFolder: string): Promise<ExecutionStore & { close(): Promise<void> }> {
	const sqlite3 = createRequire(n8nBin())('sqlite3') as Sqlite3;
	const file = join(userFolder, '.n8n', 'database.sqlite');
	const database = await new Promise<SqliteDatabase>((resolve, reject) => {
		const opened = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => (error ? reject(error) : resolve(opened)));
	});
	const all = (sql: string, params: unknown[]) =>
		new Promise<Array<Record<string, unknown>>>((resolve, reject) => database.all(sql, params, (error, rows) => (error ? reject(error) : resolve(rows))));
	return {
		async list(workflowId: string): Promise<ExecutionRow[]> {
			// n8n writes startedAt as UTC text with milliseconds; julianday keeps the fraction.
			const rows = await all('SELECT id, status, retryOf, (julianday(startedAt) - 2440587.5) * 86400000 AS startedAtMs FROM execution_entity WHERE workflowId = ? ORDER BY id', [workflowId]);
			return rows.map((row) => ({
				id: String(row.id),
				status: String(row.status),
				retryOf: row.retryOf === null ? undefined : String(row.retryOf),
				startedAtMs: row.startedAtMs === null ? undefined : Number(row.startedAtMs),
			}));
		},
		async runData(ids: string[]): Promise<Map<string, string>> {
			const data = new Map<string, string>();
			// SQLite takes at most 999 parameters per statement in older builds.
			for (let start = 0; start < ids.length; start += 500) {
				const chunk = ids.slice(start, start + 500);
				const rows = await all(`SELECT executionId, data FROM execution_data WHERE executionId IN (${chunk.map(() => '?').join(',')})`, chunk);
				for (const row of rows) data.set(String(row.executionId), String(row.data));
			}
			return data;
		},
		async durationsMs(workflowId: string): Promise<Map<string, number>> {
			// n8n writes both as UTC text with milliseconds; julianday keeps the fraction.
			const sql = 'SELECT id, (julianday(stoppedAt) - julianday(startedAt)) * 86400000 AS ms FROM execution_entity WHERE workflowId = ? AND stoppedAt IS NOT NULL AND startedAt IS NOT NULL';
			return new Map((await all(sql, [workflowId])).map((row) => [String(row.id), Number(row.ms)]));
		},
		close: () => new Promise<void>((resolve) => database.close(() => resolve())),
	};
}

/** The rows of one query, read through a connection of its own, closed after. */
async function queryOnce(userFolder: string, sql: string, params: unknown[]): Promise<Array<Record<string, unknown>>> {
	const sqlite3 = createRequire(n8nBin())('sqlite3') as Sqlite3;
	const file = join(userFolder, '.n8n', 'database.sqlite');
	const database = await new Promise<SqliteDatabase>((resolve, reject) => {
		const opened = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => (error ? reject(error) : resolve(opened)));
	});
	try {
		return await new Promise<Array<Record<string, unknown>>>((resolve, reject) => database.all(sql, params, (error, found) => (error ? reject(error) : resolve(found))));
	} finally {
		await new Promise<void>((resolve) => database.close(() => resolve()));
	}
}

/**
 * Entries in the largest history row n8n's deduplication store keeps for the workflow (one row
 * per node; its value is JSON whose `data` lists the entries' hashes).
 */
export async function keyHistoryEntries(userFolder: string, workflowId: string): Promise<number> {
	const rows = await queryOnce(userFolder, 'SELECT value FROM processed_data WHERE workflowId = ?', [workflowId]);
	const sizes = rows.map((row) => (JSON.parse(String(row.value)) as { data?: unknown }).data).map((data) => (Array.isArray(data) ? data.length : 0));
	return Math.max(0, ...sizes);
}

export interface ExecutionSpan {
	/** When n8n created it: for a webhook's execution, when the webhook call arrived. */
	createdMs: number;
	startedMs: number;
	stoppedMs: number;
}

/** When each ended execution of the workflow was created, started and stopped (n8n's createdAt, startedAt and stoppedAt), in milliseconds of the epoch, by execution id. */
export async function executionSpans(userFolder: string, workflowId: string): Promise<Map<string, ExecutionSpan>> {
	// julianday keeps the milliseconds of n8n's UTC text; 2440587.5 is the epoch's Julian day.
	const epochMs = (column: string) => `(julianday(${column}) - 2440587.5) * 86400000`;
	const sql = `SELECT id, ${epochMs('createdAt')} AS created, ${epochMs('startedAt')} AS started, ${epochMs('stoppedAt')} AS stopped FROM execution_entity WHERE workflowId = ? AND stoppedAt IS NOT NULL AND startedAt IS NOT NULL`;
	const rows = await queryOnce(userFolder, sql, [workflowId]);
	return new Map(rows.map((row) => [String(row.id), { createdMs: Number(row.created), startedMs: Number(row.started), stoppedMs: Number(row.stopped) }]));
}
