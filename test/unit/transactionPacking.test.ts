import type { SerializedTransaction } from '../../nodes/MailingPlatform/actions/transaction/packing';
import { BodyPacker, arrayBody, arrayBodyBytes, nextBatchEnd, serialize } from '../../nodes/MailingPlatform/actions/transaction/packing';
import { readReport } from '../../nodes/MailingPlatform/actions/transaction/report';

/** Prepared transactions of these sizes; only the sizes matter for packing. */
const ofSizes = (sizes: number[]): SerializedTransaction[] => sizes.map((bytes, itemIndex) => ({ itemIndex, json: '', bytes }));

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

describe('packing several transactions per stringify call', () => {
	type Transaction = Record<string, unknown>;

	/** Bodies as packed one transaction at a time: each serialized alone, greedy batches, `arrayBody`. */
	const oneByOne = (transactions: Transaction[], maxBytes: number) => {
		const refused: number[] = [];
		const sendable = [];
		for (const [itemIndex, transaction] of transactions.entries()) {
			try {
				const serialized = serialize(itemIndex, transaction);
				if (serialized.bytes + 2 > maxBytes) refused.push(itemIndex);
				else sendable.push(serialized);
			} catch {
				refused.push(itemIndex);
			}
		}
		const bodies = [];
		for (let start = 0; start < sendable.length; ) {
			const end = nextBatchEnd(sendable, start, maxBytes);
			bodies.push({ items: sendable.slice(start, end).map((entry) => entry.itemIndex), body: arrayBody(sendable, start, end).toString('hex') });
			start = end;
		}
		return { refused, bodies };
	};

	const chunked = (transactions: Transaction[], maxBytes: number) => {
		const refused: number[] = [];
		const packer = new BodyPacker(maxBytes, (itemIndex) => refused.push(itemIndex));
		transactions.forEach((transaction, itemIndex) => packer.add(itemIndex, transaction));
		const packed = packer.finish();
		const bodies = packed.bodies.map(({ start, end, body }) => ({
			items: packed.transactions.slice(start, end).map((entry) => entry.itemIndex),
			body: body.toString('hex'),
		}));
		return { refused, bodies };
	};

	// Deterministic, so that a failure can be reproduced.
	let seed = 7;
	const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
	const pieces = ['a', 'Zz', 'ä', '€', '😀', '\ud800', '"', '\\', '\n', '\u0001', '\u2028', ' ', '漢字'];
	const text = (length: number) => Array.from({ length }, () => pieces[Math.floor(random() * pieces.length)]).join('');
	const transactionOf = (index: number, textLength: number): Transaction => ({
		type: 1 + (index % 3),
		contact: { email: `${text(3)}@example.com` },
		content: { 'order.id': `A-${index}`, 'order.total': random() * 100, note: text(textLength), 'order.items': [{ title: text(5), quantity: index % 4 }] },
	});

	it.each([
		['small bodies, short texts', 1024, 300, 40],
		['small bodies, texts as long as a body', 1024, 200, 400],
		['mid-size bodies', 20_000, 2000, 120],
		['bodies of many chunks', 300_000, 5000, 200],
	])('gives byte for byte the bodies of packing one at a time: %s', (_, maxBytes, count, textLength) => {
		const transactions = Array.from({ length: count }, (__, index) => transactionOf(index, Math.floor(random() * textLength)));
		const expected = oneByOne(transactions, maxBytes);
		expect(expected.bodies.length).toBeGreaterThan(1);
		expect(chunked(transactions, maxBytes)).toEqual(expected);
	});

	it('fills bodies to exactly the limit and refuses, in order, what cannot be sent alone', () => {
		const maxBytes = 1024;
		// {"n":"…"} takes 8 bytes besides the text.
		const ofBytes = (bytes: number): Transaction => ({ n: 'x'.repeat(bytes - 8) });
		const transactions = [ofBytes(500), ofBytes(521), ofBytes(maxBytes - 2), ofBytes(maxBytes - 1), ofBytes(100), { n: 1n }, ofBytes(1022), ofBytes(10)];
		const expected = oneByOne(transactions, maxBytes);
		expect(expected.refused).toEqual([3, 5]);
		expect(expected.bodies.map((body) => body.body.length / 2)).toEqual([1024, 1024, 102, 1024, 12]);
		expect(chunked(transactions, maxBytes)).toEqual(expected);
	});

	it('packs nothing for no transactions, and one body for one', () => {
		expect(chunked([], 1024)).toEqual({ refused: [], bodies: [] });
		expect(chunked([{ a: 'ü' }], 1024)).toEqual({ refused: [], bodies: [{ items: [0], body: Buffer.from('[{"a":"ü"}]').toString('hex') }] });
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
