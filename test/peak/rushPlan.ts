/**
 * test:peak's rush as run.ts needs it: the credentials and workflows to import before n8n
 * starts, and the run itself once they are published: the rush flows one after the other
 * (unless left out), then the keyed flow at its steady state. Settings per n8n release: rushSettings.ts.
 */
import { performance } from 'node:perf_hooks';

import type { CredentialToImport } from '../../scripts/n8n';
import type { ServiceDouble } from '../double/server';
import type { ExecutionStore } from './executions';
import { measureRushFlow, type RushFigures } from './rush';
import { describeRush } from './rushReport';
import { type RushSettings, rushSettingsFor } from './rushSettings';
import { headerCredential, pacedCredential, RUSH_FLOW_LABELS, rushWorkflows, steadyCredential, steadyWorkflows, workflowFilesOf } from './rushWorkflows';
import type { ExecutionSpan } from './sqliteExecutions';
import { describeSteadyState, measureSteadyState, type SteadyFigures } from './steadyState';

export interface RushRunEnvironment {
	double: ServiceDouble;
	store: ExecutionStore;
	webhookBase: string;
	n8nGroup: number;
	/** The credential's data as the running n8n holds it. */
	credentialData(id: string): Promise<Record<string, unknown>>;
	historyEntries(workflowId: string): Promise<number>;
	executionSpans(workflowId: string): Promise<Map<string, ExecutionSpan>>;
}

export interface RushOutcome {
	settings: RushSettings;
	/** n8n's production concurrency limit the run set, if any. */
	concurrencyLimit?: number;
	flows: RushFigures[];
	steady: SteadyFigures;
	/** Seconds each part took; no flows, no time. */
	flowSeconds: number;
	steadySeconds: number;
	problems: string[];
}

export function rushPlan(sandbox: CredentialToImport, double: ServiceDouble, n8nVersion: string, parts: { flows: boolean; concurrencyLimit?: number; fillOrders?: number; compare: boolean }) {
	const release = rushSettingsFor(n8nVersion);
	const settings = parts.fillOrders === undefined ? release : { ...release, steadyFillOrders: parts.fillOrders };
	const paced = pacedCredential(sandbox, settings.budget.rate);
	const flows = parts.flows ? rushWorkflows(sandbox, paced, double) : [];
	const steadyAccount = steadyCredential(sandbox, double);
	const header = headerCredential(double);
	const steady = steadyWorkflows(steadyAccount, header, double, parts.compare);
	return {
		settings,
		credentials: [...(parts.flows ? [paced] : []), steadyAccount, header],
		workflowFiles: workflowFilesOf([...flows, ...steady]),

		async run(environment: RushRunEnvironment, log: (line: string) => void): Promise<RushOutcome> {
			const problems: string[] = [];
			// The field is new to the credential type: n8n must keep it as imported for the node to see it.
			const data = parts.flows ? await environment.credentialData(paced.id) : undefined;
			if (data !== undefined && data.maxRequestsPerSecond !== settings.budget.rate) {
				problems.push(`the paced credential reached n8n with maxRequestsPerSecond ${JSON.stringify(data.maxRequestsPerSecond)}, not ${settings.budget.rate}`);
			}
			const results: RushFigures[] = [];
			let started = performance.now();
			for (const workflow of flows) {
				log(`Rush ${RUSH_FLOW_LABELS[workflow.flow]} ...`);
				results.push(await measureRushFlow(environment, workflow, settings));
			}
			const flowSeconds = (performance.now() - started) / 1000;
			log('Steady state: Create beside n8n\'s own nodes, with no history, then with the keyed flows\' histories filled ...');
			started = performance.now();
			const steadyFigures = await measureSteadyState(environment, steady, settings);
			return { settings, concurrencyLimit: parts.concurrencyLimit, flows: results, steady: steadyFigures, flowSeconds, steadySeconds: (performance.now() - started) / 1000, problems };
		},
	};
}

export function describeRushOutcome(outcome: RushOutcome): { lines: string[]; passed: boolean } {
	const rush = describeRush(outcome.flows, outcome.settings, outcome.concurrencyLimit);
	const steady = describeSteadyState(outcome.steady, outcome.settings);
	const withFlows = outcome.flows.length > 0;
	const lines = [
		...(withFlows ? rush.lines : []),
		...outcome.problems.map((problem) => `  ${problem}`),
		...steady.lines,
		`${withFlows ? `Rush took ${outcome.flowSeconds.toFixed(0)} s, the` : 'The'} steady state ${outcome.steadySeconds.toFixed(0)} s.`,
	];
	return { lines, passed: rush.passed && steady.passed && outcome.problems.length === 0 };
}
