import { MAILINGS } from '../double/routes/mailings';
import { useServiceDouble } from '../harness/double';
import { processedData } from '../harness/processedData';
import { jsonMode, order } from '../harness/transactions';
import { retryExecution, runNode } from '../harness/workflow';

/**
 * n8n's own Retry On Fail (Settings › Retry On Fail) re-runs the node in the same execution
 * when it throws or when the first item of its first output has `json.error`. Each case is
 * what a user sees after the execution: how often the service was asked, and what the items say.
 */
const retry = { retryOnFail: true, maxTries: 3, waitBetweenTries: 1 };
const orders = [0, 1, 2, 3, 4].map((index) => order(index));
const unknownContact = { ...order(0), contact: { email: 'nobody@example.com' } };
const keyed = { ...jsonMode, options: { deduplicationKey: '={{ $json.content["order.id"] }}' } };

describe('n8n’s Retry On Fail continues the node’s work instead of repeating it', () => {
	const { double, credentials } = useServiceDouble();

	it('Create with the error output, the first order not queued: every order is posted once, and the others read queued', async () => {
		const items = [unknownContact, ...orders.slice(1)];
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items, onError: 'continueErrorOutput', retry });

		expect(double().requestsTo('transactions')).toHaveLength(1);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-1', 'A-2', 'A-3', 'A-4']);
		expect(result.errorOutput).toHaveLength(1);
		expect(result.errorOutput[0]).toMatchObject({ error: 'The transaction was not queued', message: 'No valid contact identification provided for transaction.' });
		expect(result.main.map((json) => json.queued)).toEqual([true, true, true, true]);
	});

	it('Create with Continue, the first item refused before sending: the others are posted once', async () => {
		const notJson = { ...order(0), content: 'not an object' };
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: [notJson, ...orders.slice(1)], onError: 'continueRegularOutput', retry });

		expect(double().transactions.queuedOrderIds()).toEqual(['A-1', 'A-2', 'A-3', 'A-4']);
		expect(result.main[0].error).toContain('"content" must be a JSON object');
		expect(result.main.slice(1).map((json) => json.queued)).toEqual([true, true, true, true]);
	});

	it('Create with On Error Stop, the answer lost after the service queued the orders: posted once, and the execution fails with the unknown outcome', async () => {
		double().faults.dropNext(1, { match: 'transactions', afterProcessing: true });
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: orders, retry });

		expect(double().requestsTo('transactions')).toHaveLength(1);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1', 'A-2', 'A-3', 'A-4']);
		expect(result.error?.message).toContain('outcome is unknown');
		expect(result.main).toEqual([]);
	});

	it('Create with a Deduplication Key, the first order not queued: no order twice, and those queued read queued, not skipped', async () => {
		const items = [unknownContact, ...orders.slice(1)];
		const result = await runNode({ credentials: credentials(), parameters: keyed, items, onError: 'continueErrorOutput', retry });

		expect(double().transactions.queuedOrderIds()).toEqual(['A-1', 'A-2', 'A-3', 'A-4']);
		expect(result.main.map((json) => [json.queued, json.skipped])).toEqual(Array(4).fill([true, undefined]));
		expect(result.errorOutput).toHaveLength(1);
		expect(processedData.takes('A-0')).toBe(false);
	});

	it('Create with the service unavailable (503) for a while: the account’s sender sends again after each pause, queued once, and the node does not fail', async () => {
		double().faults.failNext(5, 503, { retryAfter: '0', match: 'transactions' });
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: orders.slice(0, 2), retry });

		expect(result.error).toBeUndefined();
		expect(double().requestsTo('transactions').map((request) => request.status)).toEqual([503, 503, 503, 503, 503, 200]);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1']);
	});

	it('Start Message Size Check after a missing mailing: the existing mailing’s check is started once, and its item reads started', async () => {
		const parameters = { resource: 'mailing', operation: 'startMessageSizeCheck', mailingId: '={{ $json.id }}' };
		const items = [{ id: 4242 }, { id: MAILINGS.regular }];
		const result = await runNode({ credentials: credentials(), parameters, items, onError: 'continueRegularOutput', retry });

		expect(double().requestsTo('mailings/').map((request) => request.rawPath)).toEqual(['mailings/4242/checks/messagesize', `mailings/${MAILINGS.regular}/checks/messagesize`]);
		expect(result.main[0].error).toBe('Mailing with id 4242 not found.');
		expect(result.main[1]).toEqual({ mailingId: MAILINGS.regular, check: 'messageSize', started: true });
	});

	it('Rename after a failing rename: the second field is renamed once, and its item reads renamed', async () => {
		const parameters = { resource: 'contactField', operation: 'rename', oldName: '={{ $json.from }}', newName: '={{ $json.to }}' };
		const items = [{ from: 'missing', to: 'x' }, { from: 'shoe size', to: 'shoe size eu' }];
		const result = await runNode({ credentials: credentials(), parameters, items, onError: 'continueRegularOutput', retry });

		expect(double().requestsTo('contacts/')).toHaveLength(2);
		expect(result.main[0].error).toBe("Custom field 'missing' does not exist.");
		expect(result.main[1]).toEqual({ renamed: true, oldName: 'shoe size', newName: 'shoe size eu' });
	});

	it('says in the output panel what a retry repeats, only where Retry On Fail is on', async () => {
		const hintsOf = (result: Awaited<ReturnType<typeof runNode>>) => result.run.data.resultData.runData['Mailing Platform'][0].hints?.map((hint) => hint.message);
		const withRetry = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(0)], retry });
		const without = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(1)] });

		expect(hintsOf(withRetry)).toEqual([expect.stringContaining('Retry On Fail sends again only the transactions the service did not take')]);
		expect(hintsOf(without) ?? []).toEqual([]);
	});

	it('reads (Get Test Send-Out Result) may repeat: a re-run asks again', async () => {
		const parameters = { resource: 'mailing', operation: 'getTestSendOutResult', mailingId: '={{ $json.id }}' };
		await runNode({ credentials: credentials(), parameters, items: [{ id: 4242 }, { id: MAILINGS.regular }], onError: 'continueRegularOutput', retry });

		expect(double().requestsTo('mailings/')).toHaveLength(6);
	});
});

describe('what Create says of sending again after an execution that failed or never ended', () => {
	const { double, credentials } = useServiceDouble();

	it('names the items queued before the failure, and that retrying the execution sends them again without a Deduplication Key', async () => {
		const unknownContact = { ...order(1, 600), contact: { external_id: 'C-404' } };
		const parameters = { ...jsonMode, options: { maxRequestBytes: 1024, ignoreInvalidTransactions: false } };
		const result = await runNode({ credentials: credentials(), parameters, items: [order(0, 600), unknownContact] });

		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
		expect(result.error?.message).toContain('(item 1)');
		expect(result.error?.description).toContain(
			'1 item of an earlier request was already queued (item 0): retrying this execution, or running the same input again, sends it again. Set a Deduplication Key to prevent that.',
		);
		expect(JSON.stringify(result.error)).not.toContain(double().apiKey);
	});

	it('does not call an order “already sent” when the execution that took its key never learned the outcome', async () => {
		processedData.seed(['key A-0']);
		const result = await runNode({ credentials: credentials(), parameters: keyed, items: [order(0)] });

		expect(double().requestsTo('transactions')).toHaveLength(0);
		expect(result.main[0]).toMatchObject({ queued: false, skipped: true, outcomeUnknown: true, deduplicationKey: 'A-0' });
		expect(result.main[0].message).toBe(
			'Not sent: an earlier execution took this Deduplication Key and this node does not know whether the service queued its transaction (n8n may have stopped, the answer was lost, or in queue mode another worker is sending it now). Check in the platform whether its e-mail went out; to send it on purpose, run it once with another key, e.g. "A-0-again".',
		);
	});
});

/**
 * What a try did at the service is kept for the next try of the same node run only. A later
 * execution of the same workflow and input, and n8n's Retry of the failed execution (from the
 * executions list), are new runs: they send what they send without a Deduplication Key, whatever
 * an earlier execution kept.
 */
describe('a later execution never reuses what an earlier one kept for Retry On Fail', () => {
	const { double, credentials } = useServiceDouble();

	/** Two orders in two requests; the second order's stays unavailable (503) through every try of the node, each waiting its Max Wait Seconds. */
	async function failedExecution() {
		const create = { credentials: credentials(), parameters: { ...jsonMode, options: { maxRequestBytes: 1024, maxWaitSeconds: 1 } }, items: [order(0, 600), order(1, 600)], retry };
		double().faults.unavailableForOrders.add('A-1');
		const failed = await runNode(create);

		expect(failed.error?.message).toContain('(item 1)');
		// Three tries of the node, and A-0 posted once: the later tries reused what the first kept.
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
		expect(double().requestsTo('transactions').length).toBeGreaterThan(3);
		double().faults.unavailableForOrders.clear();
		return { create, failed };
	}

	it('a new execution of the same input sends both orders, the one queued before included, and both read queued', async () => {
		const { create } = await failedExecution();

		const again = await runNode(create);

		expect(again.error).toBeUndefined();
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-0', 'A-1']);
		expect(again.main.map((json) => json.queued)).toEqual([true, true]);
	});

	it('n8n’s Retry of the failed execution sends both orders again, the one queued before included, and both read queued', async () => {
		const { create, failed } = await failedExecution();

		const retried = await retryExecution(create, failed.run);

		expect(retried.error).toBeUndefined();
		expect(retried.run.data.resultData.runData['Source Items']).toHaveLength(1);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-0', 'A-1']);
		expect(retried.main.map((json) => json.queued)).toEqual([true, true]);
	});
});
