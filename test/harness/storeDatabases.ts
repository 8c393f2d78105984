/** The databases n8n keeps its deduplication store in: SQLite (the default) and Postgres (queue mode). */
export type StoreDatabase = 'sqlite' | 'postgres';

/**
 * What inserting a history row that exists fails with in n8n: TypeORM's QueryFailedError, with
 * the driver's message (node-sqlite3's, node-postgres's) and code. The key is processed_data's
 * primary key (workflowId, context), created by n8n's migration CreateProcessedDataTable1726606152711;
 * on Postgres it is named by TypeORM's naming strategy, PK_ca04b9d8dc72de268fe07a65773 in n8n's schema.
 */
const INSERT_COLLISION: Record<StoreDatabase, { message: string; code: string }> = {
	sqlite: { message: 'SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId, processed_data.context', code: 'SQLITE_CONSTRAINT' },
	postgres: { message: 'duplicate key value violates unique constraint "PK_ca04b9d8dc72de268fe07a65773"', code: '23505' },
};

export function insertCollision(database: StoreDatabase): Error {
	const { message, code } = INSERT_COLLISION[database];
	return Object.assign(new Error(message), { name: 'QueryFailedError', code, driverError: { code } });
}
