import type { PreparedTransaction } from '../../nodes/MailingPlatform/actions/transaction/packing';
import { arrayBody, arrayBodyBytes, nextBatchEnd, serialize } from '../../nodes/MailingPlatform/actions/transaction/packing';
import { readReport } from '../../nodes/MailingPlatform/actions/transaction/report';

/** Prepared transactions of these sizes; only the sizes matter for packing. */
const ofSizes = (sizes: number[]): PreparedTransaction[] => sizes.map((bytes, itemIndex) => ({ itemIndex, json: '', bytes }));

describe('packing transactions into request bodies', () => {
	const serialized = ['{"a":"ä"}', '{"b":2}', '{"c":"€uro"}', '{"d":4}'];
	const prepared = serialized.map((json, index) => serialize(index, JSON.parse(json) as Record<string, unknown>));

	it('counts a body exactly as sent: UTF-8 bytes, brackets and commas', () => {
		for (let end = 1; end <= serialized.length; end++) {
			const body = arrayBody(prepared, 0, end);
			expect(arrayBodyBytes(prepared, 0, end)).toBe(body.length);
			expect(body.toString('utf8')).toBe(`[${serialized.slice(0, end).join(',')}]`);
		}
		expect(JSON.parse(arrayBody(prepared, 1, 3).toString('utf8'))).toEqual([{ b: 2 }, { c: '€uro' }]);
	});

	it('fills a request up to the limit and not one byte beyond', () => {
		const limit = arrayBodyBytes(prepared, 0, 2);
		expect(nextBatchEnd(prepared, 0, limit)).toBe(2);
		expect(nextBatchEnd(prepared, 0, limit - 1)).toBe(1);
		expect(nextBatchEnd(prepared, 2, 1_000)).toBe(4);
	});

	it('packs in order into the fewest requests', () => {
		const many = ofSizes(Array.from({ length: 1000 }, (_, index) => 90 + (index % 20)));
		const ends: number[] = [];
		for (let start = 0; start < many.length; start = ends[ends.length - 1]) ends.push(nextBatchEnd(many, start, 10_000));
		const total = arrayBodyBytes(many, 0, many.length);
		expect(ends.length).toBeLessThanOrEqual(Math.ceil(total / 10_000) + 1);
		let start = 0;
		for (const end of ends) {
			expect(arrayBodyBytes(many, start, end)).toBeLessThanOrEqual(10_000);
			start = end;
		}
	});
});

describe('reading the report of a request', () => {
	it('accepts both wrappers and both forms of queued, always giving booleans', () => {
		expect(readReport('{"report":[{"contact":{"id":1},"queued":"true"},{"contact":{"id":2},"queued":"false","message":"no"}]}', 2)).toEqual({
			ok: true,
			entries: [
				{ queued: true, contact: { id: 1 } },
				{ queued: false, contact: { id: 2 }, message: 'no' },
			],
		});
		expect(readReport('{"reports":[{"contact":{"email":"a@b.c"},"queued":true}]}', 1)).toEqual({
			ok: true,
			entries: [{ queued: true, contact: { email: 'a@b.c' } }],
		});
	});

	it('refuses to guess when the number of entries does not match', () => {
		expect(readReport('{"reports":[{"queued":true}]}', 2)).toEqual({
			ok: false,
			problem: 'the answer has 1 report entries for 2 transactions sent',
		});
	});

	it('refuses unreadable answers and queued values', () => {
		expect(readReport('<html/>', 1)).toEqual({ ok: false, problem: 'the answer is not JSON' });
		expect(readReport('{"result":[]}', 0).ok).toBe(false);
		expect(readReport('{"reports":[{"queued":"yes"}]}', 1)).toEqual({
			ok: false,
			problem: 'report entry 1 has no readable "queued" value',
		});
	});
});
