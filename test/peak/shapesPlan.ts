/**
 * test:peak's other shapes of work on one account (issue 38), as run.ts needs them: the
 * workflows to import before n8n starts, then the nightly bulk beside the shop's orders, the
 * crash mid-rush (it kills n8n and starts it again), the stop mid-rush (SIGTERM, then started
 * again), on the fresh process n8n's workflow
 * timeout and stops mid-rush, and outages longer than Max Wait Seconds (503, refused
 * connections, 429). Settings per n8n release: rushSettings.ts.
 */
import { performance } from 'node:perf_hooks';

import type { CredentialToImport } from '../../scripts/n8n';
import { type BulkEnvironment, type BulkFigures, describeBulk, measureBulk } from './bulk';
import { type CrashEnvironment, type CrashFigures, describeCrash, measureCrash } from './crash';
import { type RushSettings, rushSettingsFor } from './rushSettings';
import { describeOutage, measureOutage, OUTAGE_WORDS, type OutageEnvironment, type OutageFigures } from './outage';
import { bulkWorkflows, crashWorkflow, type OutageCause, outageWorkflow, timeoutWorkflow } from './rushWorkflows';
import { describeTimeout, measureTimeout, type TimeoutEnvironment, type TimeoutFigures } from './timeout';

export interface ShapesOutcome {
	settings: RushSettings;
	bulk?: BulkFigures;
	crash?: CrashFigures;
	stop?: CrashFigures;
	timeout?: TimeoutFigures;
	/** One per outage run, in the order of `OutageCause`s asked for. */
	outages: Array<{ figures: OutageFigures; seconds: number }>;
	/** Seconds each part took. */
	bulkSeconds: number;
	crashSeconds: number;
	stopSeconds: number;
	timeoutSeconds: number;
}

export function shapesPlan(sandbox: CredentialToImport, n8nVersion: string, parts: { bulk: boolean; crash: boolean; stop: boolean; timeout: boolean; outages: readonly OutageCause[]; outageSeconds?: number }) {
	const release = rushSettingsFor(n8nVersion);
	const settings = parts.outageSeconds === undefined ? release : { ...release, outage: { ...release.outage, outageMs: parts.outageSeconds * 1000 } };
	const { maxRequestBytes, maxWaitSeconds } = settings.bulk;
	const bulk = parts.bulk ? bulkWorkflows(sandbox, { maxRequestBytes, maxWaitSeconds }) : undefined;
	const crash = parts.crash ? crashWorkflow(sandbox, 'crash') : undefined;
	const stop = parts.stop ? crashWorkflow(sandbox, 'stop') : undefined;
	const timeout = parts.timeout ? timeoutWorkflow(sandbox, settings.timeout.executionTimeoutSeconds) : undefined;
	const outages = parts.outages.map((cause) => outageWorkflow(sandbox, settings.outage.maxWaitSeconds, cause));
	return {
		workflowFiles: [...(bulk ?? []), ...(crash === undefined ? [] : [crash]), ...(stop === undefined ? [] : [stop]), ...(timeout === undefined ? [] : [timeout]), ...outages].map((workflow) => workflow.file),

		async run(environment: BulkEnvironment & CrashEnvironment & TimeoutEnvironment & OutageEnvironment, log: (line: string) => void): Promise<ShapesOutcome> {
			const outcome: ShapesOutcome = { settings, bulkSeconds: 0, crashSeconds: 0, stopSeconds: 0, timeoutSeconds: 0, outages: [] };
			let started = performance.now();
			if (bulk !== undefined) {
				log(`Bulk: ${settings.bulk.orders.toLocaleString('en-US')} orders in one execution beside one-order executions ...`);
				outcome.bulk = await measureBulk(environment, bulk, settings.bulk);
				outcome.bulkSeconds = (performance.now() - started) / 1000;
			}
			started = performance.now();
			if (crash !== undefined) {
				log('Crash: keyed Create at a rush, n8n killed and started again, the README\'s retry workflow published ...');
				outcome.crash = await measureCrash(environment, crash, settings.crash, 'SIGKILL');
				outcome.crashSeconds = (performance.now() - started) / 1000;
			}
			started = performance.now();
			if (stop !== undefined) {
				log("Stop: keyed Create at a rush, n8n stopped (SIGTERM) and started again, the README's retry workflow published ...");
				outcome.stop = await measureCrash(environment, stop, settings.stop, 'SIGTERM');
				outcome.stopSeconds = (performance.now() - started) / 1000;
			}
			started = performance.now();
			if (timeout !== undefined) {
				log(`Timeout: keyed Create at a rush, n8n's workflow timeout and stops cancelling executions, the README's retry workflow published ...`);
				outcome.timeout = await measureTimeout(environment, timeout, settings.timeout);
				outcome.timeoutSeconds = (performance.now() - started) / 1000;
			}
			for (const workflow of outages) {
				started = performance.now();
				log(`Outage: keyed Create while the service ${OUTAGE_WORDS[workflow.flow]} past Max Wait Seconds, the README's retry workflow published ...`);
				const figures = await measureOutage(environment, workflow, settings.outage);
				outcome.outages.push({ figures, seconds: (performance.now() - started) / 1000 });
			}
			return outcome;
		},
	};
}

export function describeShapesOutcome(outcome: ShapesOutcome): { lines: string[]; passed: boolean } {
	const bulk = outcome.bulk === undefined ? { lines: [], passed: true } : describeBulk(outcome.bulk, outcome.settings.bulk);
	const crash = outcome.crash === undefined ? { lines: [], passed: true } : describeCrash(outcome.crash, outcome.settings.crash);
	const stop = outcome.stop === undefined ? { lines: [], passed: true } : describeCrash(outcome.stop, outcome.settings.stop);
	const timeout = outcome.timeout === undefined ? { lines: [], passed: true } : describeTimeout(outcome.timeout, outcome.settings.timeout);
	const outages = outcome.outages.map(({ figures }) => describeOutage(figures, outcome.settings.outage));
	const took = [
		outcome.bulk === undefined ? '' : `the bulk ${outcome.bulkSeconds.toFixed(0)} s`,
		outcome.crash === undefined ? '' : `the crash ${outcome.crashSeconds.toFixed(0)} s`,
		outcome.stop === undefined ? '' : `the stop ${outcome.stopSeconds.toFixed(0)} s`,
		outcome.timeout === undefined ? '' : `the timeout ${outcome.timeoutSeconds.toFixed(0)} s`,
		...outcome.outages.map(({ figures, seconds }) => `the outage (${figures.cause}) ${seconds.toFixed(0)} s`),
	].filter(Boolean);
	return {
		lines: [...bulk.lines, ...crash.lines, ...stop.lines, ...timeout.lines, ...outages.flatMap((outage) => outage.lines), ...(took.length === 0 ? [] : [`Took: ${took.join(', ')}.`])],
		passed: bulk.passed && crash.passed && stop.passed && timeout.passed && outages.every((outage) => outage.passed),
	};
}
