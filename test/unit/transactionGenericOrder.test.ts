import type { ILoadOptionsFunctions } from 'n8n-workflow';

import { description } from '../../nodes/MailingPlatform/actions/transaction/create.operation';
import { checkedGenericOrderContent } from '../../nodes/MailingPlatform/actions/transaction/content';
import { InputProblem } from '../../nodes/MailingPlatform/helpers/values';
import { MailingPlatform } from '../../nodes/MailingPlatform/MailingPlatform.node';

describe('the generic order type’s keys', () => {
	it('offers every key of the spec with its type to the panel’s Content Fields', async () => {
		const contentFields = description.find((property) => property.name === 'contentFields');
		const method = contentFields?.typeOptions?.resourceMapper?.resourceMapperMethod as string;
		const { fields } = await new MailingPlatform().methods.resourceMapping[method as 'getGenericOrderFields'].call({} as ILoadOptionsFunctions);
		const types = Object.fromEntries(fields.map((field) => [field.id, field.type]));

		// The spec's table names 47 keys; generic_fields.string1 to string10 make 57.
		expect(fields).toHaveLength(57);
		expect(fields.filter((field) => field.type === 'number').map((field) => field.id)).toEqual([
			'order.subtotal',
			'order.shipping_fee',
			'order.tax_rate',
			'order.tax_amount',
			'order.credit',
			'order.total',
		]);
		expect(fields.filter((field) => field.type === 'dateTime').map((field) => field.id)).toEqual([
			'order.date',
			'billing.due_date',
			'shipping.delivery_date.earliest',
			'shipping.delivery_date.latest',
		]);
		expect([types['order.items'], types['order.attachments']]).toEqual(['array', 'array']);
		expect([types['billing.method.detail5'], types['shipping.delivery_date.latest_formatted'], types['generic_fields.string10']]).toEqual([
			'string',
			'string',
			'string',
		]);
		expect(fields.every((field) => !field.required && field.display)).toBe(true);
	});
});

describe('checking content of the generic order type', () => {
	/** The checked content, or the refusal the item would get. */
	const check = (content: Record<string, unknown>, convert = true) => {
		try {
			return { ok: true, content: checkedGenericOrderContent(content, convert, 'Content') };
		} catch (error) {
			if (!(error instanceof InputProblem)) throw error;
			return { ok: false, problem: error.message, hint: error.hint };
		}
	};

	it('converts decimal text to numbers and numbers to text only when conversion is on', () => {
		const content = { 'order.total': ' 59.90 ', 'order.credit': '-.5', 'order.id': 100234, 'customer.id': true };
		expect(check(content)).toEqual({
			ok: true,
			content: { 'order.total': 59.9, 'order.credit': -0.5, 'order.id': '100234', 'customer.id': 'true' },
		});
		expect(check({ 'order.id': 100234 }, false)).toEqual({
			ok: false,
			problem: 'Content: order.id must be text, not the number 100234',
			hint: 'Turn on Attempt To Convert Types to send it as "100234", or give text.',
		});
		expect(content['order.total']).toBe(' 59.90 ');
	});

	it('refuses what cannot be a number, naming the key and the value', () => {
		for (const value of ['12,5', '1,234.50', '1e3', '0x10', '', 'NaN', '59.90 EUR']) {
			const result = check({ 'order.tax_rate': value });
			expect(result).toEqual({
				ok: false,
				problem: `Content: order.tax_rate must be a number, not the text ${JSON.stringify(value)}`,
				hint: 'Write numbers with a decimal point and without thousands separators, e.g. 1234.5.',
			});
		}
		expect(check({ order: { total: true } })).toMatchObject({ ok: false, problem: 'Content: order.total must be a number, not true' });
		expect(check({ 'order.total': Number.NaN })).toMatchObject({ ok: false, problem: 'Content: order.total must be a finite number, not NaN' });
	});

	it('keeps date-time text as given and writes instants with their offset', () => {
		expect(check({ 'order.date': '2026-11-20 14:03:00', 'billing.due_date': new Date(Date.UTC(2026, 11, 1, 9)) })).toEqual({
			ok: true,
			content: { 'order.date': '2026-11-20 14:03:00', 'billing.due_date': '2026-12-01T09:00:00.000Z' },
		});
		expect(check({ shipping: { 'delivery_date.earliest': '20.11.2026' } })).toEqual({
			ok: false,
			problem: 'Content: shipping.delivery_date.earliest must be a date-time, not the text "20.11.2026"',
			hint: 'Use ISO 8601 such as 2026-11-20T14:03:00+01:00, or YYYY-MM-DD HH:MM:SS.',
		});
	});

	it('finds keys flat or grouped at any dot and passes unknown keys and null unchanged', () => {
		const content = {
			billing: { address: { line1: 7 }, 'method.detail1': 'Visa' },
			'shipping.delivery_date': { latest: '2026-11-24' },
			custom: { total: 'not checked' },
			'order.subtotal': null,
		};
		expect(check(content)).toEqual({
			ok: true,
			content: { ...content, billing: { address: { line1: '7' }, 'method.detail1': 'Visa' } },
		});
	});

	it('accepts order.items only as a list of objects', () => {
		expect(check({ 'order.items': [{ title: 'Mug' }] })).toEqual({ ok: true, content: { 'order.items': [{ title: 'Mug' }] } });
		expect(check({ 'order.items': '[{"title":"Mug"}]' })).toEqual({ ok: true, content: { 'order.items': [{ title: 'Mug' }] } });
		expect(check({ 'order.items': { title: 'Mug' } })).toEqual({
			ok: false,
			problem: 'Content: order.items must be a list of objects, not an object',
			hint: 'Map a list such as [{"title": "Mug", "quantity": 1}], e.g. with an expression over the order’s line items.',
		});
		expect(check({ 'order.items': [{ title: 'Mug' }, 'Cup'] })).toMatchObject({
			ok: false,
			problem: 'Content: order.items must be a list of objects, but entry 2 is the text "Cup"',
		});
	});
});
