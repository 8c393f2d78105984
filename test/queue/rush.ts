/**
 * Check 5: test:peak's rush (test/peak/rush.ts) across the two workers: orders one per webhook
 * call, far faster than the account's request budget in the double, to Create without a key and
 * to the strict arrangement of examples/ (a Redis counter in front of Create). Fails when an
 * order is lost or doubled; failed executions and the rest are printed.
 */
import { publishWorkflows } from '../peak/publish';
import { measureRushFlow, type RushFigures } from '../peak/rush';
import { rushFlowLines, rushHeading } from '../peak/rushReport';
import { rushSettingsFor } from '../peak/rushSettings';
import { type RushWorkflow, rushWorkflows } from '../peak/rushWorkflows';
import { scenarioWorkflow } from '../peak/workflows';
import type { PeakContext } from './peakScenarios';
import { postgresExecutions } from './postgresExecutions';

const LABELS: Record<string, string> = {
	create: 'Create',
	strict: 'strict (Redis counter, examples/shop-order-sent-once-redis.json)',
};

/** The two workflows, to be imported with the others: the rush's Create and a fresh copy of the strict example. */
export function queueRushWorkflows(credential: { id: string; name: string }, service: { baseUrl: string; apiKey: string }): Array<RushWorkflow<string>> {
	const create = rushWorkflows(credential, credential, service).find((workflow) => workflow.flow === 'create');
	if (create === undefined) throw new Error('the rush has no Create flow');
	const strict = scenarioWorkflow('strict', 'r', credential);
	return [create, { flow: 'strict', file: strict.file, webhookPath: strict.webhookPath }];
}

/** Publishes the workflows on the running main instance and runs the rush on each, one after the other. */
export async function runQueueRush(context: PeakContext, workflows: Array<RushWorkflow<string>>, n8nVersion: string): Promise<RushFigures[]> {
	await publishWorkflows(context.main().port, workflows.map((workflow) => workflow.file.id));
	const environment = { double: context.double, store: postgresExecutions(context.postgresPort), webhookBase: `http://127.0.0.1:${context.main().port}/webhook` };
	const results: RushFigures[] = [];
	for (const workflow of workflows) results.push(await measureRushFlow(environment, workflow, rushSettingsFor(n8nVersion)));
	return results;
}

const failuresOf = (figures: RushFigures) =>
	[figures.queuedNever > 0 ? `${figures.queuedNever} orders lost` : '', figures.queuedTwice > 0 ? `${figures.queuedTwice} orders doubled` : ''].filter(Boolean);

/** What broke the check: an order lost or doubled. */
export function rushFailures(results: RushFigures[]): string[] {
	return results.filter((figures) => failuresOf(figures).length > 0).map((figures) => `rush ${LABELS[figures.flow] ?? figures.flow}: ${failuresOf(figures).join(', ')}`);
}

export function describeQueueRush(results: RushFigures[], n8nVersion: string): string[] {
	return [rushHeading(rushSettingsFor(n8nVersion), 'queue mode, two workers'), ...results.flatMap((figures) => rushFlowLines(figures, LABELS[figures.flow] ?? figures.flow, failuresOf(figures)))];
}
