import { packBodies, unpackBody } from '../../nodes/MailingPlatform/actions/transaction/packing';
import { readReport } from '../../nodes/MailingPlatform/actions/transaction/report';

type Transaction = Record<string, unknown>;

/**
 * The bodies written the simplest way, as the expectation: each transaction serialized alone, greedy
 * batches in order joined as `[a,b]`; one too large for any body alone in a body of its own.
 */
function oneByOne(transactions: Transaction[], maxBytes: number) {
	const unserializable: number[] = [];
	const bodies: Array<{ items: number[]; body: string }> = [];
	let items: number[] = [];
	let texts: string[] = [];
	const close = () => {
		if (items.length > 0) bodies.push({ items, body: Buffer.from(`[${texts.join(',')}]`, 'utf8').toString('hex') });
		items = [];
		texts = [];
	};
	const bytes = (list: string[]) => Buffer.byteLength(`[${list.join(',')}]`, 'utf8');
	for (const [itemIndex, transaction] of transactions.entries()) {
		let json: string;
		try {
			json = JSON.stringify(transaction);
		} catch {
			unserializable.push(itemIndex);
			continue;
		}
		if (items.length > 0 && bytes([...texts, json]) > maxBytes) close();
		items.push(itemIndex);
		texts.push(json);
		if (bytes([json]) > maxBytes) close();
	}
	close();
	return { unserializable, bodies };
}

/** What the packer yields, each body read as it comes: the next one is written into the same buffer. */
const packed = (transactions: Transaction[], maxBytes: number) => {
	const result = { unserializable: [] as number[], bodies: [] as Array<{ items: number[]; body: string }> };
	for (const entry of packBodies(transactions.map((transaction, itemIndex) => ({ itemIndex, transaction })), maxBytes)) {
		if (entry.kind === 'unserializable') result.unserializable.push(entry.itemIndex);
		else result.bodies.push({ items: [...entry.body.itemIndexes], body: entry.body.bytes.toString('hex') });
	}
	return result;
};

describe('packing transactions into request bodies', () => {
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
		expect(packed(transactions, maxBytes)).toEqual(expected);
	});

	it('fills bodies to exactly the limit and gives what cannot fit a body of its own, leaving out what JSON cannot hold', () => {
		const maxBytes = 1024;
		// {"n":"…"} takes 8 bytes besides the text.
		const ofBytes = (bytes: number): Transaction => ({ n: 'x'.repeat(bytes - 8) });
		const transactions = [ofBytes(500), ofBytes(521), ofBytes(maxBytes - 2), ofBytes(maxBytes - 1), ofBytes(100), { n: 1n }, ofBytes(1022), ofBytes(10)];
		const expected = oneByOne(transactions, maxBytes);
		expect(expected.unserializable).toEqual([5]);
		expect(expected.bodies.map((body) => body.body.length / 2)).toEqual([1024, 1024, 1025, 102, 1024, 12]);
		expect(packed(transactions, maxBytes)).toEqual(expected);
	});

	it('packs nothing for no transactions, and one body for one', () => {
		expect(packed([], 1024)).toEqual({ unserializable: [], bodies: [] });
		expect(packed([{ a: 'ü' }], 1024)).toEqual({ unserializable: [], bodies: [{ items: [0], body: Buffer.from('[{"a":"ü"}]').toString('hex') }] });
	});

	it('unpacks a body into the transactions the service receives, paired with their items', () => {
		const [first] = packBodies([{ itemIndex: 4, transaction: { a: 'ä', b: [1] } }, { itemIndex: 9, transaction: { c: null, d: undefined } }], 1024);
		const body = first.kind === 'body' ? first.body : { itemIndexes: [], bytes: Buffer.from('[]') };
		expect(unpackBody(body)).toEqual([
			{ itemIndex: 4, transaction: { a: 'ä', b: [1] } },
			{ itemIndex: 9, transaction: { c: null } },
		]);
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
