/** Executions in the queue-mode run's Postgres, read with psql. */
import type { ExecutionRow, ExecutionStore } from '../peak/executions';
import { sql } from './postgres';

/** Ids and workflow ids this run makes are digits and letters only, so they go into the SQL text as they are. */
function plain(value: string): string {
	if (!/^[0-9A-Za-z]+$/.test(value)) throw new Error(`not a plain id: ${value}`);
	return value;
}

export function postgresExecutions(postgresPort: number): ExecutionStore {
	return {
		async list(workflowId: string): Promise<ExecutionRow[]> {
			const rows = await sql(postgresPort, `SELECT id, status, "retryOf" FROM execution_entity WHERE "workflowId" = '${plain(workflowId)}' ORDER BY id`);
			return rows.map(([id, status, retryOf]) => ({ id, status, retryOf: retryOf || undefined }));
		},
		async runData(ids: string[]): Promise<Map<string, string>> {
			if (ids.length === 0) return new Map();
			const rows = await sql(postgresPort, `SELECT "executionId", data FROM execution_data WHERE "executionId" IN (${ids.map(plain).join(',')})`);
			// The run data is JSON text: one line, but it may hold the column separator "|".
			return new Map(rows.map(([id, ...data]) => [id, data.join('|')]));
		},
		async durationsMs(workflowId: string): Promise<Map<string, number>> {
			const rows = await sql(
				postgresPort,
				`SELECT id, EXTRACT(EPOCH FROM ("stoppedAt" - "startedAt")) * 1000 FROM execution_entity WHERE "workflowId" = '${plain(workflowId)}' AND "stoppedAt" IS NOT NULL AND "startedAt" IS NOT NULL`,
			);
			return new Map(rows.map(([id, ms]) => [id, Number(ms)]));
		},
	};
}
