import type { IDataObject } from 'n8n-workflow';

import { useServiceDouble } from '../harness/double';
import type { SourceItem } from '../harness/sourceNode';
import { runNode } from '../harness/workflow';

/** A generic-order transaction in the API's shape, padded to about `bytes` bytes of JSON. */
function order(index: number, bytes = 0): IDataObject {
	const transaction: IDataObject = {
		type: 1,
		contact: { email: ['anna@example.com', 'ben@example.com', 'carla@example.com'][index % 3] },
		content: {
			'order.id': `A-${index}`,
			'order.total': 19.5 + index,
			'order.items': [{ title: 'Mug', quantity: 1, price: 19.5 }],
			billing: { fullname: 'Anna Example', 'address.line1': 'Main Street 1' },
		},
	};
	const size = JSON.stringify(transaction).length;
	if (bytes > size) (transaction.content as IDataObject)['generic_fields.string1'] = 'x'.repeat(bytes - size - 35);
	return transaction;
}

const orderIds = (count: number) => Array.from({ length: count }, (_, index) => `A-${index}`);

describe('transaction › create in a workflow', () => {
	const { double, credentials } = useServiceDouble();
	const jsonMode = { resource: 'transaction', operation: 'create', inputMode: 'json' };
	const fieldsMode = {
		resource: 'transaction',
		operation: 'create',
		inputMode: 'fields',
		typeBy: 'id',
		typeId: 1,
		contactEmail: '={{ $json.email }}',
		content: '={{ $json.order }}',
	};

	it('sends three items from fields as one request and pairs each report entry with its item', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: fieldsMode,
			items: [
				{ email: 'anna@example.com', order: { 'order.id': 'A-1', 'order.total': 10 } },
				{ email: 'ben@example.com', order: { order: { id: 'A-2', total: 20.5 } } },
				{ email: 'carla@example.com', order: { 'order.id': 'A-3', 'order.items': [{ title: 'Mug', price: 9 }] } },
			],
		});

		expect(result.error).toBeUndefined();
		expect(result.main).toEqual([
			{ queued: true, contact: { id: 1001, email: 'anna@example.com', external_id: 'C-1001' } },
			{ queued: true, contact: { id: 1002, email: 'ben@example.com', external_id: 'C-1002' } },
			{ queued: true, contact: { id: 1003, email: 'carla@example.com' } },
		]);
		expect(result.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		const requests = double().requestsTo('transactions');
		expect(requests).toHaveLength(1);
		expect(requests[0].contentType).toBe('application/json; charset=utf-8');
		expect(requests[0].query).toEqual([['ignore_invalid_transactions', 'true']]);
		expect(double().transactions.queued.map((queued) => queued.transaction)).toEqual([
			{ type: 1, contact: { email: 'anna@example.com' }, content: { 'order.id': 'A-1', 'order.total': 10 } },
			{ type: 1, contact: { email: 'ben@example.com' }, content: { order: { id: 'A-2', total: 20.5 } } },
			{ type: 1, contact: { email: 'carla@example.com' }, content: { 'order.id': 'A-3', 'order.items': [{ title: 'Mug', price: 9 }] } },
		]);
	});

	it('splits 3,000 orders of about 8 KB into the fewest requests of at most 9,000,000 bytes, all queued in order', async () => {
		const items = Array.from({ length: 3000 }, (_, index) => order(index, 8000));
		const totalBytes = 2 + items.reduce<number>((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)) + 1, -1);

		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items });

		expect(result.error).toBeUndefined();
		expect(result.main).toHaveLength(3000);
		expect(result.main.every((json) => json.queued === true)).toBe(true);
		const requests = double().requestsTo('transactions');
		expect(requests.every((request) => request.bodyBytes <= 9_000_000)).toBe(true);
		expect(requests.length).toBeLessThanOrEqual(Math.ceil(totalBytes / 9_000_000) + 1);
		expect(double().transactions.queuedOrderIds()).toEqual(orderIds(3000));
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

	describe('permission of the import form', () => {
		const importMode = {
			...fieldsMode,
			contactMode: 'import',
			permission: '={{ $json.permission }}',
			content: '={{ { "order.id": $json.id } }}',
		};
		const items = [
			{ email: 'new1@example.com', permission: 2, id: 'A-1' },
			{ email: 'new2@example.com', permission: 1, id: 'A-2' },
		];

		it('refuses permission 1 before anything is sent', async () => {
			const result = await runNode({ credentials: credentials(), parameters: importMode, items });

			expect(result.error?.message).toBe(
				'[item 1] Permission is 1 (none): no mail may be sent to a contact with it. Use 2 to 6',
			);
			expect(result.error?.context?.itemIndex).toBe(1);
			expect(double().requestsTo('transactions')).toHaveLength(0);
		});

		it('sends the others and creates the missing contact with continue-on-fail', async () => {
			const result = await runNode({ credentials: credentials(), parameters: importMode, items, onError: 'continueRegularOutput' });

			expect(result.main[0]).toMatchObject({ queued: true, contact: { email: 'new1@example.com' } });
			expect(result.main[1]).toEqual({
				error: '[item 1] Permission is 1 (none): no mail may be sent to a contact with it. Use 2 to 6',
				message: 'Fix it in the input or in the node’s fields.',
			});
			expect(double().transactions.queued.map((queued) => queued.transaction)).toEqual([
				{ type: 1, import: { contact: { email: 'new1@example.com', permission: 2 }, content: { 'order.id': 'A-1' } } },
			]);
			expect(double().transactions.contacts.some((contact) => contact.email === 'new1@example.com')).toBe(true);
		});
	});

	describe('attachments from binary properties', () => {
		const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10, 0x80, 0x0a]);
		const binaryItem = (index: number, fileName: string, mimeType: string, data: Buffer): SourceItem => ({
			json: { email: 'anna@example.com', order: { 'order.id': `A-${index}` } },
			binaries: [{ property: 'invoice', fileName, mimeType, data: data.toString('base64') }],
		});

		it('sends them byte-exact and refuses oversized, executable and missing ones per item', async () => {
			const result = await runNode({
				credentials: credentials(),
				parameters: { ...fieldsMode, options: { attachmentBinaryProperties: 'invoice' } },
				items: [
					binaryItem(0, 'invoice.pdf', 'application/pdf', pdf),
					binaryItem(1, 'big.pdf', 'application/pdf', Buffer.alloc(1_000_001, 7)),
					binaryItem(2, 'setup.exe', 'application/pdf', pdf),
					binaryItem(3, 'tool.bin.txt', 'application/x-msdownload', pdf),
					{ json: { email: 'ben@example.com', order: { 'order.id': 'A-4' } } },
				],
				onError: 'continueRegularOutput',
			});

			expect(result.main[0]).toMatchObject({ queued: true });
			expect(result.main[1].error).toContain('more than 1,000,000 bytes');
			expect(result.main[2].error).toContain('"setup.exe" (application/pdf) in "invoice" is an executable file');
			expect(result.main[3].error).toContain('is an executable file');
			expect(result.main[4].error).toBe('[item 4] Attachment Binary Properties: the item has no binary property "invoice"');
			const [queued] = double().transactions.queued;
			expect(double().transactions.queued).toHaveLength(1);
			expect(queued.attachments).toEqual([{ filename: 'invoice.pdf', mimetype: 'application/pdf', data: pdf }]);
		});
	});

	it('retries two 503s and delivers each transaction once', async () => {
		double().faults.failNext(2, 503, { retryAfter: '0', match: 'transactions' });
		const result = await runNode({ credentials: credentials(), parameters: jsonMode, items: [order(0), order(1)] });

		expect(result.error).toBeUndefined();
		expect(result.main.map((json) => json.queued)).toEqual([true, true]);
		expect(double().requestsTo('transactions').map((request) => request.status)).toEqual([503, 503, 200]);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1']);
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

	it('fails only the items of a request that stays unavailable, keeping the others’ results', async () => {
		double().faults.failNext(5, 503, { retryAfter: '0', match: 'transactions' });
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...jsonMode, options: { maxRequestBytes: 1024 } },
			items: [order(0, 700), order(1, 700)],
			onError: 'continueRegularOutput',
		});

		expect(result.main[0].error).toContain('(items 0 to 0, 1 transactions)');
		expect(result.main[0].message).toContain('No item of an earlier request was queued.');
		expect(result.main[1]).toMatchObject({ queued: true });
		expect(double().transactions.queuedOrderIds()).toEqual(['A-1']);
	});

	it('reads one transaction per item from a Transaction JSON expression, with the type by name', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...jsonMode, transactionJson: '={{ $json.transaction }}' },
			items: [
				{ transaction: { typeName: 'shipping notice', contact: { external_id: 'C-1002' }, content: { 'shipping.tracking_code': 'T1' } } },
				{ transaction: JSON.stringify({ type: 3, contact: { id: 1003 }, content: {} }) },
			],
		});

		expect(result.main).toEqual([
			{ queued: true, contact: { id: 1002, email: 'ben@example.com', external_id: 'C-1002' } },
			{ queued: true, contact: { id: 1003, email: 'carla@example.com' } },
		]);
		expect(double().transactions.queued.map((queued) => queued.typeId)).toEqual([2, 3]);
	});

	it('leaves an empty Contact ID out and refuses one that is not a number', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...fieldsMode, contactId: '={{ $json.contactId }}' },
			items: [
				{ contactId: '', email: 'anna@example.com', order: { 'order.id': 'A-1' } },
				{ contactId: 'C-1002', email: 'ben@example.com', order: { 'order.id': 'A-2' } },
				{ contactId: 1003, email: '', order: { 'order.id': 'A-3' } },
			],
			onError: 'continueRegularOutput',
		});

		expect(result.main.map((json) => json.queued ?? json.error)).toEqual([
			true,
			'[item 1] Contact ID must be the platform\'s numeric contact ID, not "C-1002"',
			true,
		]);
		expect(double().transactions.queued.map((queued) => queued.transaction?.contact)).toEqual([
			{ email: 'anna@example.com' },
			{ id: 1003 },
		]);
	});

	it('refuses items without type or contact, naming the item and the field', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...fieldsMode, typeId: '={{ $json.type }}' },
			items: [
				{ type: 1, email: '', order: {} },
				{ type: 0, email: 'anna@example.com', order: {} },
				{ type: 1, email: 'anna@example.com', order: '["not", "an object"]' },
			],
			onError: 'continueRegularOutput',
		});

		expect(result.main.map((json) => json.error)).toEqual([
			'[item 0] Contact E-Mail, Contact External ID or Contact ID is missing: give an e-mail address, external ID or contact ID',
			'[item 1] Transaction Type ID is missing: set the transaction type by ID or by name',
			'[item 2] Content must be a JSON object',
		]);
		expect(result.main[2].message).toBe('Give Content as one JSON object, e.g. {"order.id": "A-1001", "order.total": 59.9}.');
		expect(double().requestsTo('transactions')).toHaveLength(0);
	});
});
