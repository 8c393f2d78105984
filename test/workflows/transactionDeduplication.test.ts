import { useServiceDouble } from '../harness/double';
import { processedData } from '../harness/processedData';
import { jsonMode, order } from '../harness/transactions';
import { runNode } from '../harness/workflow';

const keyed = (options: Record<string, unknown> = {}) => ({
	...jsonMode,
	options: { deduplicationKey: '={{ $json.content["order.id"] }}', ...options },
});
const orders = [order(0), order(1), order(2)];

describe('transaction › create with a Deduplication Key', () => {
	const { double, credentials } = useServiceDouble();

	it('sends the same three orders once over two executions; the second skips them on the main output', async () => {
		const first = await runNode({ credentials: credentials(), parameters: keyed(), items: orders, onError: 'continueErrorOutput' });
		const second = await runNode({ credentials: credentials(), parameters: keyed(), items: orders, onError: 'continueErrorOutput' });

		expect(first.main.map((json) => [json.queued, json.deduplicationKey])).toEqual([[true, 'A-0'], [true, 'A-1'], [true, 'A-2']]);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1', 'A-2']);
		expect(double().requestsTo('transactions')).toHaveLength(1);
		expect(second.errorOutput).toEqual([]);
		expect(second.main).toEqual(
			orders.map((transaction, index) => ({
				queued: false,
				skipped: true,
				deduplicationKey: `A-${index}`,
				contact: transaction.contact,
				message: 'Not sent again: this node already sent a transaction with this Deduplication Key',
			})),
		);
		expect(second.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('sends one transaction for two items with the same key in one execution', async () => {
		const result = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0), order(1), order(0)] });

		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1']);
		expect(result.main[2]).toMatchObject({ skipped: true, deduplicationKey: 'A-0', message: 'Not sent: item 0 of this execution has the same Deduplication Key' });
	});

	it('sends in the next execution an order whose first send stayed unavailable (503), and says so', async () => {
		double().faults.failNext(5, 503, { retryAfter: '0', match: 'transactions' });
		const failed = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)], onError: 'continueRegularOutput' });
		expect(failed.main[0].error).toContain('(items 0 to 0, 1 transactions)');
		expect(failed.main[0].message).toContain('Its Deduplication Key was not recorded, so a re-run sends it.');
		expect(processedData.remembers('A-0')).toBe(false);

		const next = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });
		expect(next.main[0]).toMatchObject({ queued: true, deduplicationKey: 'A-0' });
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
	});

	it('sends in the next execution an order the service did not queue', async () => {
		const unknownContact = { ...order(1), contact: { external_id: 'C-404' } };
		const first = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0), unknownContact] });
		expect(first.main[1]).toMatchObject({ queued: false, deduplicationKey: 'A-1' });
		expect(first.main[1].message).toBe('No valid contact identification provided for transaction. Its Deduplication Key was not recorded, so a re-run sends it.');

		const fixed = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0), order(1)] });
		expect(fixed.main.map((json) => json.skipped ?? json.queued)).toEqual([true, true]);
		expect(fixed.main[0].skipped).toBe(true);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1']);
	});

	it('forgets a key whose outcome is unknown (500 after sending), and says a re-run sends it', async () => {
		double().faults.failNext(1, 500, { match: 'transactions' });
		const result = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });

		expect(result.error?.message).toContain('outcome is unknown');
		expect(result.error?.description).toContain('Its Deduplication Key was not recorded, so a re-run sends it.');
		expect(double().requestsTo('transactions')).toHaveLength(1);
		expect(processedData.remembers('A-0')).toBe(false);
	});

	it('refuses an item whose key is empty before anything is sent', async () => {
		const result = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0), { ...order(1), content: { 'order.id': ' ' } }] });

		expect(result.error?.message).toBe('Deduplication Key is empty, so the node cannot tell whether this transaction was sent before');
		expect(result.error?.context?.itemIndex).toBe(1);
		expect(double().requests).toHaveLength(0);
		expect(processedData.calls).toHaveLength(0);
	});

	it('keeps the history to the Deduplication History Size, in n8n’s store for this node', async () => {
		await runNode({ credentials: credentials(), parameters: keyed({ deduplicationHistorySize: 2 }), items: orders });

		expect(processedData.calls[0]).toMatchObject({ operation: 'checkProcessedAndRecord', scope: 'node', options: { mode: 'entries', maxEntries: 2 } });
		expect(['A-0', 'A-1', 'A-2'].map((key) => processedData.remembers(key))).toEqual([false, true, true]);
	});
});
