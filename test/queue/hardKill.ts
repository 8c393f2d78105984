/**
 * One measurement, not a promise: the main instance killed with SIGKILL right after a poll got
 * the service's answer, before n8n saved the trigger's state. n8n's own guarantee there is
 * at-least-once; this records what actually happened, for docs/running-at-scale.md.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

import { sql } from './postgres';
import { BlockLedger, pollAnswered, SETTLE_MS, type TriggerContext, waitForBlocks } from './trigger';
import { BLOCKS_WORKFLOW_ID } from './workflows';

export interface HardKillFigures {
	blocks: number;
	/** Between seeing the poll's answer leave the service and sending SIGKILL. */
	killDelayMs: number;
	stateSavedBeforeKill: boolean;
	executionsBeforeKill: number;
	/** How often each block was emitted in all (before the kill and after the restart). */
	timesEmitted: number[];
}

async function staticData(postgresPort: number): Promise<string> {
	const [[data]] = await sql(postgresPort, `SELECT coalesce("staticData"::text, '') FROM workflow_entity WHERE id = '${BLOCKS_WORKFLOW_ID}'`);
	return data;
}

async function executionCount(postgresPort: number): Promise<number> {
	const [[count]] = await sql(postgresPort, `SELECT count(*) FROM execution_entity WHERE "workflowId" = '${BLOCKS_WORKFLOW_ID}'`);
	return Number(count);
}

export async function measureHardKill(context: TriggerContext, ledger: BlockLedger, postgresPort: number): Promise<HardKillFigures> {
	const { collector, double } = context;
	const savedBefore = await staticData(postgresPort);
	const executionsBefore = await executionCount(postgresPort);
	const firstRequest = double.requests.length;
	const emails = ledger.add('hard-kill', 3);
	const fromMs = Math.min(...emails.map((email) => ledger.added.get(email) ?? Number.NaN));

	await pollAnswered(context.double, firstRequest, fromMs);
	const answerSeen = performance.now();
	let stateSavedBeforeKill = false;
	let executionsBeforeKill = 0;
	// restartMain sends the signal before it awaits anything.
	const killDelayMs = performance.now() - answerSeen;
	await context.restartMain('SIGKILL', async () => {
		stateSavedBeforeKill = (await staticData(postgresPort)) !== savedBefore;
		executionsBeforeKill = (await executionCount(postgresPort)) - executionsBefore;
	});
	await waitForBlocks(collector, emails, 'after the hard kill');
	await sleep(SETTLE_MS);

	const timesEmitted = emails.map((email) => collector.received.filter((entry) => entry.block.email === email).length);
	assert.ok(timesEmitted.every((times) => times >= 1), 'no block is lost after a hard kill');
	return { blocks: emails.length, killDelayMs, stateSavedBeforeKill, executionsBeforeKill, timesEmitted };
}
