import { useServiceDouble } from '../harness/double';
import type { SourceItem } from '../harness/sourceNode';
import { fieldsMode, jsonMode } from '../harness/transactions';
import { runNode } from '../harness/workflow';
import { MailingPlatform } from '../../nodes/MailingPlatform/MailingPlatform.node';

describe('transaction › create in a workflow: input and refusals', () => {
	const { double, credentials } = useServiceDouble();

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

		it('sends every permission the panel offers as chosen, and refuses those it does not offer', async () => {
			const permission = new MailingPlatform().description.properties.find((property) => property.name === 'permission');
			const offered = (permission?.options ?? []).map((option) => ('value' in option ? option.value : undefined));
			const chosen = [...offered, 1, 7].map((value, index) => ({ email: `new${index}@example.com`, permission: value, id: `A-${index}` }));

			const result = await runNode({ credentials: credentials(), parameters: importMode, items: chosen, onError: 'continueRegularOutput' });

			expect(offered).toEqual([2, 3, 4, 5, 6]);
			expect(double().transactions.queued.map((queued) => (queued.transaction?.import as { contact: { permission: number } }).contact.permission)).toEqual(offered);
			expect(result.main.slice(offered.length).map((json) => json.error)).toEqual([
				'Permission is 1 (none): no mail may be sent to a contact with it. Use 2 to 6',
				'Permission must be a whole number from 2 to 6',
			]);
		});

		it('refuses permission 1 before anything is sent', async () => {
			const result = await runNode({ credentials: credentials(), parameters: importMode, items });

			expect(result.error?.message).toBe(
				'Permission is 1 (none): no mail may be sent to a contact with it. Use 2 to 6',
			);
			expect(result.error?.context?.itemIndex).toBe(1);
			expect(double().requestsTo('transactions')).toHaveLength(0);
		});

		it('sends the others and creates the missing contact with continue-on-fail', async () => {
			const result = await runNode({ credentials: credentials(), parameters: importMode, items, onError: 'continueRegularOutput' });

			expect(result.main[0]).toMatchObject({ queued: true, contact: { email: 'new1@example.com' } });
			expect(result.main[1]).toEqual({
				queued: false,
				outcomeUnknown: false,
				notSentYet: false,
				contact: {},
				error: 'Permission is 1 (none): no mail may be sent to a contact with it. Use 2 to 6',
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
			expect(result.main[2].error).toBe('Attachment Binary Properties: "setup.exe" (application/pdf) is an executable file, which the service does not allow');
			expect(result.main[3].error).toContain('is an executable file');
			expect(result.main[4].error).toBe('Attachment Binary Properties: the item has no binary property "invoice"');
			const [queued] = double().transactions.queued;
			expect(double().transactions.queued).toHaveLength(1);
			expect(queued.attachments).toEqual([{ filename: 'invoice.pdf', mimetype: 'application/pdf', data: pdf }]);
		});
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

		expect(result.main.map((json) => json.error ?? json.queued)).toEqual([
			true,
			'Contact ID must be a whole number of at least 0, not "C-1002"',
			true,
		]);
		expect(double().transactions.queued.map((queued) => queued.transaction?.contact)).toEqual([
			{ email: 'anna@example.com' },
			{ id: 1003 },
		]);
	});

	it('refuses items without type or contact, each on its own item, naming the field', async () => {
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
			'Contact E-Mail, Contact External ID or Contact ID is missing: give an e-mail address, external ID or contact ID',
			'Transaction Type ID is missing: set the transaction type by ID or by name',
			'Content must be a JSON object',
		]);
		expect(result.main[2].message).toBe('Give Content as one JSON object, e.g. {"order.id": "A-1001", "order.total": 59.9}.');
		// Each error item is paired with the input item it refuses, which is how the editor links them.
		expect(result.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(double().requestsTo('transactions')).toHaveLength(0);
	});

	it('stops on an item without a type, naming that item in the error, when Continue On Fail is off', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...fieldsMode, typeId: '={{ $json.type }}' },
			items: [
				{ type: 1, email: 'anna@example.com', order: {} },
				{ type: 1, email: 'ben@example.com', order: {} },
				{ type: 0, email: 'carla@example.com', order: {} },
			],
		});

		expect(result.error?.message).toBe('Transaction Type ID is missing: set the transaction type by ID or by name');
		expect(result.error?.context?.itemIndex).toBe(2);
		expect(double().requestsTo('transactions')).toHaveLength(0);
	});
});
