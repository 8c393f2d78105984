import { setTimeout as sleep } from 'node:timers/promises';

import { keyStoreIdle } from '../../nodes/MailingPlatform/helpers/keyStore';

import { useServiceDouble } from '../harness/double';
import { range } from '../harness/deliveries';
import { HARNESS_NODE, processedData } from '../harness/processedData';
import { jsonMode, order } from '../harness/transactions';
import { type NodeRunResult, runNode } from '../harness/workflow';

const keyed = { ...jsonMode, options: { deduplicationKey: '={{ $json.content["order.id"] }}' } };
const hintsOf = (result: NodeRunResult) => result.run.data.resultData.runData['Mailing Platform'][0].hints?.map((hint) => hint.message) ?? [];
/** A wait other than for the account's requests already under way (which a loaded machine makes): one for the history. */
const waitedForHistory = (hint: string) => /^Waited /.test(hint) && !/^Waited [\d.]+ s for the account's requests because other executions' requests were under way\./.test(hint);

/**
 * A shop's keyed node after some weeks: its history full at the default size (10,000 keys and
 * their marks), so that every store call rewrites 20,000 entries (model of n8n's store, 3 ms
 * per read and write). Each case has its own workflow, so its node's history is new to the process.
 */
describe('transaction › create with a Deduplication Key whose history is full', () => {
	const { double, credentials } = useServiceDouble();

	function fullHistory(workflowId: string): void {
		processedData.latencyMs = 3;
		processedData.seed(range(20_000).map((number) => `earlier order ${number}`), { workflowId, nodeId: HARNESS_NODE.nodeId });
	}

	/** The store calls that claimed the orders' keys: each key's first. */
	const claimCalls = (orders: number) => new Set(range(orders).map((number) => processedData.calls.findIndex((call) => call.items.includes(`key A-${number}`)))).size;

	it('sends each order of a steady stream at once: none waits for others to share its rewrite of the history', async () => {
		fullHistory('stream');
		const runs = await Promise.all(
			range(20).map(async (number) => {
				await sleep(50 * number);
				return await runNode({ credentials: credentials(), parameters: keyed, items: [order(number)], workflowId: 'stream' });
			}),
		);
		await keyStoreIdle();

		expect(runs.map((run) => run.main[0].queued)).toEqual(range(20).map(() => true));
		expect(double().transactions.queuedOrderIds()).toHaveLength(20);
		expect(runs.flatMap(hintsOf).filter(waitedForHistory)).toEqual([]);
	});

	it('lets orders arriving together share requests and rewrites of the history', async () => {
		fullHistory('together');
		const runs = await Promise.all(range(20).map(async (number) => await runNode({ credentials: credentials(), parameters: keyed, items: [order(number)], workflowId: 'together' })));
		await keyStoreIdle();

		expect(runs.map((run) => run.main[0].queued)).toEqual(range(20).map(() => true));
		expect(double().transactions.queuedOrderIds()).toHaveLength(20);
		// Alone, each order would have its own request and its own rewrite of the row: the others arrive while the first's claim is under way.
		expect(double().requestsTo('transactions').length).toBeLessThanOrEqual(10);
		expect(claimCalls(20)).toBeLessThanOrEqual(10);
	});
});
