import type { SendableRecord } from '../../nodes/MailingPlatform/actions/transaction/outcomes';
import { packBodies } from '../../nodes/MailingPlatform/actions/transaction/packing';

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
	const records: SendableRecord[] = transactions.map((transaction, itemIndex) => ({ itemIndex, transaction }));
	for (const body of packBodies(records, () => maxBytes, (record) => result.unserializable.push(record.itemIndex))) {
		result.bodies.push({ items: body.records.map((record) => record.itemIndex), body: body.bytes.toString('hex') });
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
});
