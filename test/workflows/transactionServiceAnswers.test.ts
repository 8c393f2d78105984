import { useServiceDouble } from '../harness/double';
import { jsonMode, order } from '../harness/transactions';
import { runNode } from '../harness/workflow';

describe('transaction › create in a workflow: service answers and failures', () => {
	const { double, credentials } = useServiceDouble();

	it('retries two 503s and delivers each transaction once', async () => {
		double().faults.failNext(2, 503, { retryAfter: '0', match: 'transactions' });
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(0), order(1)] });

		expect(result.error).toBeUndefined();
		expect(result.main.map((json) => json.queued)).toEqual([true, true]);
		expect(double().requestsTo('transactions').map((request) => request.status)).toEqual([503, 503, 200]);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1']);
	});

	it.each(['1.5', '0', 'Sat, 01 Jan 2000 00:00:00 GMT'])('waits out a 429 with Retry-After %p before the next request, and at least a quarter second', async (retryAfter) => {
		double().faults.failNext(2, 429, { retryAfter, match: 'transactions' });
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(0)] });

		expect(result.main[0]).toMatchObject({ queued: true });
		const requests = double().requestsTo('transactions');
		expect(requests.map((request) => request.status)).toEqual([429, 429, 200]);
		const pauseMs = retryAfter === '1.5' ? 1500 : 250;
		for (let index = 1; index < requests.length; index++) expect(requests[index].receivedAtMs - requests[index - 1].receivedAtMs).toBeGreaterThanOrEqual(pauseMs - 20);
	});

	it('does not resend when the connection breaks after sending, and says the outcome is unknown', async () => {
		double().faults.dropNext(1, { match: 'transactions' });
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(0), order(1)] });

		expect(result.error?.message).toContain('outcome is unknown');
		expect(result.error?.description).toContain('No item of an earlier request was queued.');
		expect(double().requestsTo('transactions')).toHaveLength(1);
	});

	it('reads the "report" wrapper with string "queued" values as real booleans', async () => {
		double().faults.reportWrapper = 'report';
		double().faults.queuedAsString = true;
		const unknown = { ...order(1), contact: { email: 'nobody@example.com' } };
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(0), unknown] });

		expect(result.main).toEqual([
			{ queued: true, contact: { id: 1001, email: 'anna@example.com', external_id: 'C-1001' } },
			{
				queued: false,
				contact: { email: 'nobody@example.com' },
				message: 'No valid contact identification provided for transaction.',
			},
		]);
	});

	it.each([
		['<html/>', 'the answer is not JSON'],
		['{"result":[]}', 'the answer has no "reports" or "report" list'],
		['{"reports":[{"queued":true}]}', 'the answer has 1 report entry for 2 transactions sent'],
		['{"reports":[{"queued":true},{"queued":"yes"}]}', 'report entry 2 has no readable "queued" value'],
	])('does not guess from an unreadable report (%s): both items fail, their outcome unknown', async (body, problem) => {
		double().faults.failNext(1, 200, { body, contentType: 'application/json', match: 'transactions' });
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(0), order(1)], onError: 'continueRegularOutput' });

		const error = `The service's report could not be matched to the transactions sent: ${problem} (items 0 to 1, 2 transactions)`;
		expect(result.main.map((json) => [json.error, json.outcomeUnknown])).toEqual([
			[error, true],
			[error, true],
		]);
		expect(result.main[0].message).toContain('some of these transactions may have been queued');
		expect(double().requestsTo('transactions')).toHaveLength(1);
	});

	it('does not pair a report whose entries come in another order than the transactions: each entry names its contact, and all items are left unknown', async () => {
		double().faults.reportsReversed = true;
		double().faults.notQueuedOrders.add('A-1');
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(0), order(1)], onError: 'continueRegularOutput' });

		const error = "The service's report could not be matched to the transactions sent: report entry 1 names another contact than transaction 1 of the request (items 0 to 1, 2 transactions)";
		expect(result.main.map((json) => [json.error, json.outcomeUnknown])).toEqual([
			[error, true],
			[error, true],
		]);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
	});

	it('keeps not-queued transactions as data, with the service’s message for a number given as text', async () => {
		const asText = { ...order(1), content: { 'order.id': 'A-1', 'order.total': '19.50' } };
		const result = await runNode({
			credentials: credentials(),
			parameters: jsonMode,
			items: [order(0), asText, { ...order(2), type: undefined, typeName: 'no such type' }],
		});

		expect(result.error).toBeUndefined();
		expect(result.main.map((json) => [json.queued, json.message])).toEqual([
			[true, undefined],
			[false, "The provided attribute 'order.total' cannot be transformed: double expected."],
			[false, "Transaction type with name 'no such type' not found."],
		]);
	});

	it('sends not-queued items to the error output when it is enabled', async () => {
		const unknown = { ...order(1), contact: { external_id: 'C-404' } };
		const result = await runNode({
			credentials: credentials(),
			parameters: jsonMode,
			items: [order(0), unknown, order(2)],
			onError: 'continueErrorOutput',
		});

		expect(result.main.map((json) => json.queued)).toEqual([true, true]);
		expect(result.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 2 }]);
		expect(result.errorOutput).toHaveLength(1);
		expect(result.errorOutput[0]).toMatchObject({
			error: 'The transaction was not queued',
			message: 'No valid contact identification provided for transaction.',
			contact: { external_id: 'C-404' },
		});
		expect(result.outputs[1][0].pairedItem).toEqual({ item: 1 });
	});

	describe('with Ignore Invalid Transactions off', () => {
		const strict = { ...jsonMode, options: { ignoreInvalidTransactions: false, maxRequestBytes: 1024 } };
		const items = [order(0, 700), order(1, 700), { ...order(2, 700), contact: { email: 'nobody@example.com' } }];

		it('fails the refused request’s items with the service’s message and counts those already queued', async () => {
			const result = await runNode({ credentials: credentials(), parameters: strict, items, onError: 'continueRegularOutput' });

			expect(result.main.slice(0, 2).map((json) => json.queued)).toEqual([true, true]);
			expect(result.main[2].error).toContain('No valid contact identification provided for transaction.');
			expect(result.main[2].message).toContain('2 items of earlier requests were already queued');
			expect(double().requestsTo('transactions').map((request) => request.query)).toEqual(
				Array(3).fill([['ignore_invalid_transactions', 'false']]),
			);
		});

		it('stops the node with an error that says how many items were queued', async () => {
			const result = await runNode({ credentials: credentials(), parameters: strict, items });

			expect(result.error?.message).toContain('No valid contact identification provided for transaction.');
			expect(result.error?.httpCode).toBe('400');
			expect(result.error?.description).toContain('2 items of earlier requests were already queued');
			expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1']);
		});
	});

	it('sends again what the service refused as unavailable (503), once it is back, in the same execution', async () => {
		double().faults.failNext(5, 503, { retryAfter: '0', match: 'transactions' });
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(0), order(1)] });

		expect(double().requestsTo('transactions').map((request) => request.status)).toEqual([503, 503, 503, 503, 503, 200]);
		expect(result.main.map((json) => json.queued)).toEqual([true, true]);
	});

	it('fails as not sent, after Max Wait Seconds, the items whose service stays unavailable, saying how long and why', async () => {
		double().faults.failNext(1_000, 503, { match: 'transactions' });
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...jsonMode, options: { maxRequestBytes: 1024, maxWaitSeconds: 1 } },
			items: [order(0, 700), order(1, 700)],
			onError: 'continueRegularOutput',
		});

		expect(result.main.map((json) => json.error)).toEqual([
			"Not sent: it waited 1 s for the account's requests (Max Wait Seconds) because the service answered 503 (unavailable) (items 0 to 1, 2 transactions)",
			"Not sent: it waited 1 s for the account's requests (Max Wait Seconds) because the service answered 503 (unavailable) (items 0 to 1, 2 transactions)",
		]);
		expect(result.main[0].message).toContain('The service did not get it, so running it again sends it once.');
		expect(double().transactions.queuedOrderIds()).toEqual([]);
	});
});
