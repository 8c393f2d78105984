import type { IDataObject } from 'n8n-workflow';

import { useServiceDouble } from '../harness/double';
import { jsonMode } from '../harness/transactions';
import { mapped, sentContent, wooItem } from '../harness/wooCommerce';
import { runNode } from '../harness/workflow';

describe('transaction › create: JSON content with Validate Generic Order Content', () => {
	const { double, credentials } = useServiceDouble();
	const transaction = (content: IDataObject) => ({ type: 1, contact: { email: 'anna@example.com' }, content });
	const items = [
		transaction({ 'order.id': 'A-1', order: { total: '59.90' }, 'order.items': '[{"title": "Mug"}]' }),
		transaction({ 'order.id': 'A-2', 'order.tax_rate': '12,5' }),
		transaction({ 'order.id': 'A-3', 'order.total': '1,234.50' }),
		transaction({ 'order.id': 'A-4', 'order.items': 'Mug x2' }),
	];

	it('refuses the same bad values before sending and converts decimal text', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...jsonMode, options: { validateGenericOrderContent: true } },
			items,
			onError: 'continueRegularOutput',
		});

		expect(result.main[0]).toMatchObject({ queued: true });
		expect(result.main.slice(1).map((json) => json.error)).toEqual([
			'"content": order.tax_rate must be a number, not the text "12,5"',
			'"content": order.total must be a number, not the text "1,234.50"',
			'"content": order.items must be a list of objects, but the text "Mug x2" is not valid JSON',
		]);
		expect(double().transactions.queued.map((queued) => queued.transaction)).toEqual([
			transaction({ 'order.id': 'A-1', order: { total: 59.9 }, 'order.items': [{ title: 'Mug' }] }),
		]);
	});

	it('checks the Content field of the Fields mode too', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: {
				...mapped({}),
				contentMode: 'json',
				content: '={{ $json.body.tax_lines[0].rate_percent === 19 ? { "order.total": $json.body.total } : { "order.tax_rate": "12,5" } }}',
				options: { validateGenericOrderContent: true },
			},
			items: [wooItem(), wooItem({ tax_lines: [{ rate_percent: 7 }] })],
			onError: 'continueRegularOutput',
		});

		expect(result.main[0]).toMatchObject({ queued: true });
		expect(result.main[1].error).toContain('Content: order.tax_rate must be a number, not the text "12,5"');
		expect(sentContent(double())).toEqual([{ 'order.total': 59.9 }]);
	});

	it('sends every transaction byte for byte as today when the option is off', async () => {
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items });

		expect(result.error).toBeUndefined();
		expect(result.main.map((json) => [json.queued, json.message])).toEqual([
			[false, "The provided attribute 'order.total' cannot be transformed: double expected."],
			[false, "The provided attribute 'order.tax_rate' cannot be transformed: double expected."],
			[false, "The provided attribute 'order.total' cannot be transformed: double expected."],
			[true, undefined],
		]);
		const [request] = double().requestsTo('transactions');
		expect(request.bodyBytes).toBe(Buffer.byteLength(JSON.stringify(items)));
		expect(double().transactions.queued.map((queued) => queued.transaction)).toEqual([items[3]]);
	});
});
