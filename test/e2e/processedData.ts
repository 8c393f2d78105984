import { createRequire } from 'node:module';
import { join } from 'node:path';

import { n8nBin } from '../../scripts/n8n';

/** One row of n8n's processed_data table: a node's (or workflow's) deduplication history. */
export interface ProcessedDataRow {
	/** `n:<node id>` for scope 'node', empty for scope 'workflow'. */
	context: string;
	mode: string;
	/** Values kept (as n8n's hashes), repeats counted. */
	entries: number;
}

interface SqliteDatabase {
	all(sql: string, params: unknown[], callback: (error: Error | null, rows: Array<Record<string, string>>) => void): void;
	close(): void;
}
interface Sqlite3 {
	OPEN_READONLY: number;
	Database: new (file: string, mode: number, callback: (error: Error | null) => void) => SqliteDatabase;
}

/**
 * The deduplication histories n8n keeps for a workflow, read from the SQLite database of the
 * n8n user folder with n8n's own sqlite3 module, while no n8n process runs.
 */
export async function processedDataRows(userFolder: string, workflowId: string): Promise<ProcessedDataRow[]> {
	const sqlite3 = createRequire(n8nBin())('sqlite3') as Sqlite3;
	const file = join(userFolder, '.n8n', 'database.sqlite');
	const database = await new Promise<SqliteDatabase>((resolve, reject) => {
		const opened = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => (error ? reject(error) : resolve(opened)));
	});
	try {
		const rows = await new Promise<Array<Record<string, string>>>((resolve, reject) =>
			database.all('SELECT context, value FROM processed_data WHERE workflowId = ? ORDER BY context', [workflowId], (error, found) =>
				error ? reject(error) : resolve(found),
			),
		);
		return rows.map((row) => {
			const value = JSON.parse(row.value) as { mode: string; data: unknown };
			return { context: row.context, mode: value.mode, entries: Array.isArray(value.data) ? value.data.length : 1 };
		});
	} finally {
		database.close();
	}
}
