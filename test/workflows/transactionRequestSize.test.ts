import { useServiceDouble } from '../harness/double';
import { jsonMode, order, orderIds } from '../harness/transactions';
import { runNode } from '../harness/workflow';

describe('transaction › create in a workflow: request size', () => {
	const { double, credentials } = useServiceDouble();

	it('splits 3,000 orders of about 8 KB into the fewest requests of at most 9,000,000 bytes, all queued in order', async () => {
		const items = Array.from({ length: 3000 }, (_, index) => order(index, 8000));
		// Filling each body in input order until the next transaction would not fit gives the fewest bodies.
		let fewest = 1;
		let bodyBytes = 1;
		for (const item of items) {
			const bytes = Buffer.byteLength(JSON.stringify(item)) + 1;
			if (bodyBytes + bytes > 9_000_000) [fewest, bodyBytes] = [fewest + 1, 1];
			bodyBytes += bytes;
		}

		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items });

		expect(result.error).toBeUndefined();
		expect(result.main).toHaveLength(3000);
		expect(result.main.every((json) => json.queued === true)).toBe(true);
		const requests = double().requestsTo('transactions');
		expect(requests.every((request) => request.bodyBytes <= 9_000_000)).toBe(true);
		expect(fewest).toBe(3);
		expect(requests).toHaveLength(fewest);
		expect(double().transactions.queuedOrderIds()).toEqual(orderIds(3000));
	});

	it('keeps the limit a 413 taught for the next executions, after the account had nothing to send', async () => {
		double().faults.entityLimitBytes = 100_000;
		const items = Array.from({ length: 40 }, (_, index) => order(index, 8000));
		await runNode({ credentials: credentials(), parameters: jsonMode, items });
		const refusedFirst = double().requestsTo('transactions').filter((request) => request.status === 413).length;
		const before = double().requestsTo('transactions').length;

		const later = await runNode({ credentials: credentials(), parameters: jsonMode, items });

		expect(refusedFirst).toBeGreaterThan(0);
		expect(later.main.every((json) => json.queued === true)).toBe(true);
		expect(double().requestsTo('transactions').slice(before).map((request) => request.status)).not.toContain(413);
	});

	it('delivers every transaction exactly once when the service’s real limit is 1,000,000 bytes', async () => {
		double().faults.entityLimitBytes = 1_000_000;
		double().transactions.keepTransactions = false;
		const items = Array.from({ length: 400 }, (_, index) => order(index, 8000));

		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items });

		expect(result.error).toBeUndefined();
		expect(result.main.map((json) => json.queued)).toEqual(items.map(() => true));
		expect(double().transactions.queuedOrderIds()).toEqual(orderIds(400));
		expect(double().transactions.receivedCount).toBe(400);
		const statuses = double().requestsTo('transactions').map((request) => request.status);
		expect(statuses).toContain(413);
	});

	it('fails a transaction alone with a clear message when even it alone is refused as too large', async () => {
		double().faults.entityLimitBytes = 5_000;
		const result = await runNode({
			credentials: credentials(),
			parameters: jsonMode,
			items: [order(0, 1000), order(1, 8000), order(2, 1000)],
			onError: 'continueRegularOutput',
		});

		expect(result.main[0]).toMatchObject({ queued: true });
		expect(result.main[1].error).toContain('too large (413), even sent alone');
		expect(result.main[2]).toMatchObject({ queued: true });
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-2']);
	});

	it('refuses a transaction over Max Request Bytes alone; bodies go out as they are packed, so the refusal says what went before', async () => {
		const items = [order(0, 700), order(1, 700), order(2, 3000), order(3, 700)];
		const parameters = { ...jsonMode, options: { maxRequestBytes: 1024 } };

		const going = await runNode({ credentials: credentials(), parameters, items, onError: 'continueRegularOutput' });
		expect(going.main.map((json) => json.error ?? json.queued)).toEqual([
			true,
			true,
			expect.stringMatching(/^The transaction alone is \d,\d{3} bytes as JSON, more than one request may carry \(1,024 bytes\)$/),
			true,
		]);
		expect(going.main[2].message).toBe('Make its content or attachments smaller. 2 items of earlier requests were already queued.');
	});

	it('stops at a transaction over Max Request Bytes alone, after the bodies packed before it went out', async () => {
		const items = [order(0, 700), order(1, 700), order(2, 3000), order(3, 700)];
		const parameters = { ...jsonMode, options: { maxRequestBytes: 1024 } };
		const stopped = await runNode({ credentials: credentials(), parameters, items });
		expect(stopped.error?.context?.itemIndex).toBe(2);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1']);
	});
});
