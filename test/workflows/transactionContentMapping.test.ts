import { useServiceDouble } from '../harness/double';
import { exampleNode, mapped, MONEY, sentContent, webhookItem, wooItem, wooOrder } from '../harness/wooCommerce';
import { runNode } from '../harness/workflow';

describe('transaction › create with content mapped onto the generic order type', () => {
	const { double, credentials } = useServiceDouble();

	const sending = { ...exampleNode.parameters, options: { ...(exampleNode.parameters.options as object), dryRun: false } };

	it('mails nobody with the WooCommerce example as shipped: a dry run showing the order it would send, keyed by the order ID', async () => {
		const result = await runNode({ credentials: credentials(), parameters: exampleNode.parameters, items: [webhookItem] });

		expect(result.main).toEqual([
			expect.objectContaining({ dryRun: true, queued: false, deduplicationKey: '5310', contact: { email: 'jane.doe@example.com' } }),
		]);
		expect((result.main[0].transaction as { import: { content: object } }).import.content).toMatchObject({ 'order.id': '5310', 'order.total': 59.9 });
		expect(double().requests).toHaveLength(0);
	});

	it('queues the WooCommerce example order with "total": "59.90" sent as the number 59.9', async () => {
		expect(wooOrder.total).toBe('59.90');
		const result = await runNode({
			credentials: credentials(),
			parameters: sending,
			items: [webhookItem],
			onError: 'continueErrorOutput',
		});

		expect(result.error).toBeUndefined();
		expect(result.errorOutput).toEqual([]);
		expect(result.main).toEqual([{ queued: true, contact: { id: 5000, email: 'jane.doe@example.com' }, deduplicationKey: '5310' }]);
		const [content] = sentContent(double());
		expect(content).toEqual({
			'order.id': '5310',
			'order.date': '2026-11-20T13:03:27Z',
			'order.date_formatted': '20.11.2026',
			'order.currency': 'EUR',
			'order.items': [
				{ title: 'Trail Running Shoe - 42', articlenumber: 'TRS-42', quantity: 1, price: 44.95, image: expect.stringMatching(/^https:/) },
				{ title: 'Merino Running Socks (2 pairs)', articlenumber: 'MRS-2P', quantity: 1, price: 9.95, image: expect.stringMatching(/^https:/) },
			],
			'order.shipping_fee': 4.2,
			'order.tax_rate': 19,
			'order.tax_amount': 9.57,
			'order.credit': 0,
			'order.total': 59.9,
			'billing.fullname': 'Jane Doe',
			'billing.address.line1': 'Main Street 1',
			'billing.address.line2': '10115 Berlin',
			'billing.address.line3': 'DE',
			'billing.method.type': 'Credit card (Stripe)',
			'shipping.fullname': 'Jane Doe',
			'shipping.address.line1': 'Main Street 1',
			'shipping.address.line2': '10115 Berlin',
			'shipping.address.line3': 'DE',
			'shipping.method': 'DHL Parcel',
			'customer.full_name': 'Jane Doe',
			'generic_fields.string1': 'Please leave the parcel with the neighbours if I am out.',
		});
		// The guest's customer_id 0 maps to an empty customer.id, which is left out.
		expect(content).not.toHaveProperty('customer.id');
	});

	it('refuses the order before sending, naming order.total, when type conversion is off', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: mapped(MONEY, { attemptToConvertTypes: false }),
			items: [wooItem()],
		});

		expect(result.error?.message).toBe('Content Fields: order.total must be a number, not the text "59.90"');
		expect(result.error?.description).toBe(
			'Turn on Attempt To Convert Types to send it as 59.9, or give a number.',
		);
		expect(result.error?.context?.itemIndex).toBe(0);
		expect(double().requestsTo('transactions')).toHaveLength(0);
	});

	it('refuses "12,5" for order.tax_rate on its own item, naming the key, and sends the other orders', async () => {
		const items = [wooItem(), wooItem({ number: '5311', tax_lines: [{ rate_percent: '12,5' }] }), wooItem({ number: '5312', total: '1,234.50' })];
		const result = await runNode({ credentials: credentials(), parameters: mapped(MONEY), items, onError: 'continueRegularOutput' });

		expect(result.main[0]).toMatchObject({ queued: true });
		expect(result.main[1]).toEqual({
			queued: false,
			outcomeUnknown: false,
			notSentYet: false,
			contact: {},
			error: 'Content Fields: order.tax_rate must be a number, not the text "12,5"',
			message: 'Write numbers with a decimal point and without thousands separators, e.g. 1234.5.',
		});
		expect(result.main[2].error).toBe('Content Fields: order.total must be a number, not the text "1,234.50"');
		// Each error item is paired with the order it refuses, which is how the editor links them.
		expect(result.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(sentContent(double())).toEqual([{ 'order.id': '5310', 'order.total': 59.9, 'order.tax_rate': 19 }]);
		expect(double().transactions.receivedCount).toBe(1);
	});

	it('stops before anything is sent when a later item is refused and Continue On Fail is off', async () => {
		const items = [wooItem(), wooItem({ tax_lines: [{ rate_percent: '12,5' }] })];
		const result = await runNode({ credentials: credentials(), parameters: mapped(MONEY), items });

		expect(result.error?.message).toContain('Content Fields: order.tax_rate must be a number, not the text "12,5"');
		expect(result.error?.context?.itemIndex).toBe(1);
		expect(double().requestsTo('transactions')).toHaveLength(0);
	});

	it('sends order.items from an expression over the line items as a list of objects, and parses a JSON string', async () => {
		const items = [wooItem(), wooItem({ number: '5311', line_items: JSON.stringify([{ name: 'Mug', quantity: 2 }]) }), wooItem({ number: '5312', line_items: 'Mug x2' })];
		const result = await runNode({
			credentials: credentials(),
			parameters: mapped({
				'order.id': '={{ $json.body.number }}',
				'order.items':
					'={{ typeof $json.body.line_items === "string" ? $json.body.line_items : $json.body.line_items.map(item => ({ title: item.name, quantity: item.quantity })) }}',
			}),
			items,
			onError: 'continueRegularOutput',
		});

		expect(result.main.map((json) => json.queued)).toEqual([true, true, false]);
		expect(result.main[2].error).toBe(
			'Content Fields: order.items must be a list of objects, but the text "Mug x2" is not valid JSON',
		);
		expect(sentContent(double())).toEqual([
			{
				'order.id': '5310',
				'order.items': [
					{ title: 'Trail Running Shoe - 42', quantity: 1 },
					{ title: 'Merino Running Socks (2 pairs)', quantity: 1 },
				],
			},
			{ 'order.id': '5311', 'order.items': [{ name: 'Mug', quantity: 2 }] },
		]);
	});

	it('sends extra custom keys unchanged and leaves empty fields out', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: {
				...mapped({
					'order.id': '={{ $json.body.number }}',
					'order.credit': '={{ $json.body.no_such_field }}',
					'order.url': '',
					'customer.salutation': '  ',
				}),
				extraContentFields: {
					field: [
						{ key: 'generic_fields.number1', value: '={{ 42 }}' },
						{ key: 'loyalty', value: '={{ { tier: "gold", points: "1200" } }}' },
						{ key: 'coupon', value: 'SUMMER-10' },
						{ key: 'unused', value: '' },
					],
				},
			},
			items: [wooItem()],
		});

		expect(result.main).toEqual([expect.objectContaining({ queued: true })]);
		expect(sentContent(double())).toEqual([
			{ 'order.id': '5310', 'generic_fields.number1': 42, loyalty: { tier: 'gold', points: '1200' }, coupon: 'SUMMER-10' },
		]);
	});

	it('maps input fields named like the keys automatically, flat or grouped, and ignores the others', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...mapped({}), contactEmail: '={{ $json.email }}', contentFields: { mappingMode: 'autoMapInputData', value: null } },
			items: [
				{ email: 'anna@example.com', 'order.id': 'A-1', 'order.total': '59.90', note: 'not a key' },
				{ email: 'ben@example.com', order: { id: 'A-2', total: 20.5 }, billing: { address: { line1: 'Main Street 1' } } },
			],
		});

		expect(result.main.map((json) => json.queued)).toEqual([true, true]);
		expect(sentContent(double())).toEqual([
			{ 'order.id': 'A-1', 'order.total': 59.9 },
			{ 'order.id': 'A-2', 'order.total': 20.5, 'billing.address.line1': 'Main Street 1' },
		]);
	});
});
