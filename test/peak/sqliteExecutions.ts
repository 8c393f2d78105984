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
			const rows = await all('SELECT id, status FROM execution_entity WHERE workflowId = ? ORDER BY id', [workflowId]);
			return rows.map((row) => ({ id: String(row.id), status: String(row.status) }));
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
		close: () => new Promise<void>((resolve) => database.close(() => resolve())),
	};
}
