import { useServiceDouble } from '../harness/double';
import { processedData } from '../harness/processedData';
import { fieldsMode, jsonMode, order } from '../harness/transactions';
import { runNode } from '../harness/workflow';

const orders = [order(0), order(1), order(2)];

describe('transaction › create with Dry Run', () => {
	const { double, credentials } = useServiceDouble();

	it('makes no request and shows each transaction exactly as it would be sent, and a real run then sends every order', async () => {
		const dryRun = await runNode({
			credentials: credentials(),
			parameters: { ...jsonMode, options: { dryRun: true, deduplicationKey: '={{ $json.content["order.id"] }}' } },
			items: orders,
		});

		expect(dryRun.error).toBeUndefined();
		expect(double().requests).toHaveLength(0);
		expect(processedData.calls).toHaveLength(0);
		const body = Buffer.byteLength(JSON.stringify(orders));
		expect(dryRun.main).toEqual(
			orders.map((transaction, index) => ({
				dryRun: true,
				queued: false,
				contact: transaction.contact,
				deduplicationKey: `A-${index}`,
				message: 'Dry Run: checked and packed as a real run would, not sent',
				request: { number: 1, bytes: body, transactions: 3 },
				transaction,
			})),
		);
		expect(dryRun.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);

		const real = await runNode({
			credentials: credentials(),
			parameters: { ...jsonMode, options: { deduplicationKey: '={{ $json.content["order.id"] }}' } },
			items: orders,
		});
		expect(real.main.map((json) => json.queued)).toEqual([true, true, true]);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1', 'A-2']);
	});

	it('shows the transaction built from fields, converted as it would be sent', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...fieldsMode, options: { dryRun: true } },
			items: [{ email: ' anna@example.com ', order: { 'order.id': 'A-1', 'order.total': 10 } }],
		});

		expect(result.main[0].transaction).toEqual({ type: 1, contact: { email: 'anna@example.com' }, content: { 'order.id': 'A-1', 'order.total': 10 } });
		expect(result.main[0].contact).toEqual({ email: 'anna@example.com' });
		expect(double().requests).toHaveLength(0);
	});

	it('refuses what a real run refuses, the same way, and tells which request each other item would go in', async () => {
		const items = [order(0, 700), { ...order(1), type: undefined }, order(2, 700), { ...order(3), content: { big: 'x'.repeat(2000) } }];
		const parameters = { ...jsonMode, options: { dryRun: true, maxRequestBytes: 1024 } };
		const result = await runNode({ credentials: credentials(), parameters, items, onError: 'continueRegularOutput' });

		expect(result.main[1].error).toBe('"type" or "typeName" is missing: set the transaction type by ID or by name');
		expect(result.main[3].error).toMatch(/^The transaction alone is 2,\d{3} bytes as JSON, more than one request may carry \(1,024 bytes\)$/);
		expect(result.main[0].request).toMatchObject({ number: 1, transactions: 1 });
		expect(result.main[2].request).toMatchObject({ number: 2, transactions: 1 });

		const stopped = await runNode({ credentials: credentials(), parameters, items });
		expect(stopped.error?.message).toBe('"type" or "typeName" is missing: set the transaction type by ID or by name');
		expect(stopped.error?.context?.itemIndex).toBe(1);
		expect(double().requests).toHaveLength(0);
	});
});
