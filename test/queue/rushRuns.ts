/**
 * The rush across the workers (check 5) as runs: one-order executions of test:peak's rush flows,
 * spread by Redis over the two workers, at the workers' default concurrency and at a small one.
 * Create without a budget in its credential (each worker's sender learns from the service's 429s)
 * and Create with each worker's share of the account's budget in its credential; at the default
 * concurrency also the strict arrangement of examples/ (a Redis counter in front of Create).
 * Each run has its own workflow, webhook and orders, so that no run counts another's.
 */
import { randomUUID } from 'node:crypto';

import type { CredentialToImport } from '../../scripts/n8n';
import type { RushSettings } from '../peak/rushSettings';
import { pacedCredential, type RushFlow, type RushWorkflow, rushWorkflows } from '../peak/rushWorkflows';
import { scenarioWorkflow } from '../peak/workflows';

/** n8n's default `--concurrency` of a worker: at most this many executions at once on each. */
export const DEFAULT_CONCURRENCY = 10;
/** A small one, as small plans set n8n's production concurrency limit. */
export const SMALL_CONCURRENCY = 5;
/** Workers the account's budget is shared by. */
export const RUSH_WORKERS = 2;

export interface QueueRushRun {
	/** Unique per run: names its workflow's webhook and its orders. */
	flow: string;
	label: string;
	/** Each worker's `--concurrency` during the run. */
	concurrency: number;
	/**
	 * How test:peak's rush judges it, with one first lesson per worker (a paced Create must not be
	 * refused at all); the strict arrangement only by lost and doubled orders.
	 */
	judgedAs?: RushFlow;
	workflow: RushWorkflow<string>;
}

/** test:peak's workflow again under another flow name: its own id, webhook path and node ids. */
function renamed(workflow: RushWorkflow<string>, flow: string): RushWorkflow<string> {
	const webhookPath = `queue-rush-${flow}`;
	const nodes = workflow.file.nodes.map((node) =>
		node.webhookId === undefined
			? { ...node, id: randomUUID() }
			: { ...node, id: randomUUID(), webhookId: randomUUID(), parameters: { ...node.parameters, path: webhookPath } },
	);
	const id = `mpQRush${flow}`.padEnd(16, '0');
	return { flow, webhookPath, file: { ...workflow.file, id, name: `Queue rush: ${flow}`, nodes } };
}

/**
 * Each worker's Max Requests per Second: nine tenths of its equal part of the account's budget.
 * Exactly its part leaves a service that allows no burst beyond its rate (burst 2 for two workers
 * at 1 per second) no room for a request that arrives a few milliseconds early: 1 POST refused.
 */
export const workerShare = (settings: RushSettings) => Math.floor((settings.budget.rate / RUSH_WORKERS) * 9) / 10;

/** The runs in their order, and the credential with each worker's share, to be imported with the others. */
export function queueRushRuns(sandbox: CredentialToImport, service: { baseUrl: string; apiKey: string }, settings: RushSettings) {
	const shares = pacedCredential(sandbox, workerShare(settings));
	const flows = rushWorkflows(sandbox, shares, service);
	const flowOf = (flow: RushFlow) => flows.find((workflow) => workflow.flow === flow) as RushWorkflow<RushFlow>;
	const strict = scenarioWorkflow('strict', 'r', sandbox);
	const sharesLabel = `Create, each worker's share in the credential (Max Requests per Second ${workerShare(settings)})`;
	const create = (concurrency: number): QueueRushRun => {
		const flow = `create${concurrency}`;
		return { flow, label: 'Create, no budget in the credential', concurrency, judgedAs: 'create', workflow: renamed(flowOf('create'), flow) };
	};
	const paced = (concurrency: number): QueueRushRun => {
		const flow = `shares${concurrency}`;
		return { flow, label: sharesLabel, concurrency, judgedAs: 'createPaced', workflow: renamed(flowOf('createPaced'), flow) };
	};
	const strictRun: QueueRushRun = {
		flow: 'strict',
		label: 'strict (Redis counter, examples/shop-order-sent-once-redis.json), no budget',
		concurrency: DEFAULT_CONCURRENCY,
		workflow: { flow: 'strict', file: strict.file, webhookPath: strict.webhookPath },
	};
	const runs = [create(DEFAULT_CONCURRENCY), paced(DEFAULT_CONCURRENCY), strictRun, create(SMALL_CONCURRENCY), paced(SMALL_CONCURRENCY)];
	return { credential: shares, runs };
}
