import { packBodies } from '../../nodes/MailingPlatform/actions/transaction/packing';

type Transaction = Record<string, unknown>;

/**
 * The bodies written the simplest way, as the expectation: each transaction serialized alone, greedy
 * batches in order joined as `[a,b]`; one JSON cannot hold, or too large for any body alone,
 * refused, and the batch before it closed (a body holds consecutive items only).
 */
function oneByOne(transactions: Transaction[], maxBytes: number) {
	const refused: number[] = [];
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
			close();
			refused.push(itemIndex);
			continue;
		}
		if (items.length > 0 && bytes([...texts, json]) > maxBytes) close();
		if (bytes([json]) > maxBytes) {
			refused.push(itemIndex);
			continue;
		}
		items.push(itemIndex);
		texts.push(json);
	}
	close();
	return { refused, bodies };
}

/** What the packer yields, each body read as it comes: the next one is written into the same buffer. */
const packed = (transactions: Transaction[], maxBytes: number) => {
	const result = { refused: [] as number[], bodies: [] as Array<{ items: number[]; body: string }> };
	const order = transactions.map((_, itemIndex) => itemIndex);
	for (const body of packBodies(transactions, order, 0, { limit: maxBytes, maxBytes })) {
		if ('refusal' in body) result.refused.push(order[body.start]);
		else result.bodies.push({ items: order.slice(body.start, body.end), body: body.bytes.toString('hex') });
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

	it('fills bodies to exactly the limit and refuses what JSON cannot hold or no body can carry', () => {
		const maxBytes = 1024;
		// {"n":"…"} takes 8 bytes besides the text.
		const ofBytes = (bytes: number): Transaction => ({ n: 'x'.repeat(bytes - 8) });
		// A circular structure: n8n-workflow gives a BigInt a toJSON, so in n8n that one is JSON.
		const circular: Transaction = { n: 'x' };
		circular.self = circular;
		const transactions = [ofBytes(500), ofBytes(521), ofBytes(maxBytes - 2), ofBytes(maxBytes - 1), ofBytes(100), circular, ofBytes(1022), ofBytes(10)];
		const expected = oneByOne(transactions, maxBytes);
		expect(expected.refused).toEqual([3, 5]);
		expect(expected.bodies.map((body) => body.body.length / 2)).toEqual([1024, 1024, 102, 1024, 12]);
		expect(packed(transactions, maxBytes)).toEqual(expected);
	});

	it('gives a transaction above a lowered limit a body of its own, and refuses it only above Max Request Bytes', () => {
		const transactions = [{ n: 'x'.repeat(600) }, { n: 'y'.repeat(600) }, { n: 'z'.repeat(2000) }];
		const bodies = [...packBodies(transactions, [0, 1, 2], 0, { limit: 300, maxBytes: 1024 })];
		expect(bodies.map((body) => ('refusal' in body ? 'refused' : body.bytes.length))).toEqual([610, 610, 'refused']);
	});

	it('starts at the given position of the order, and packs only the items the order names', () => {
		const transactions = [{ a: 0 }, { a: 1 }, { a: 2 }, { a: 3 }];
		const bodies = [...packBodies(transactions, [0, 2, 3], 1, { limit: 1024, maxBytes: 1024 })];
		expect(bodies.map((body) => ('refusal' in body ? 'refused' : [body.start, body.end, body.bytes.toString()]))).toEqual([[1, 3, '[{"a":2},{"a":3}]']]);
	});

	it('writes a body of one order into a buffer of about its own size, not of the limit', () => {
		const bufferBehind = (transaction: Transaction) => {
			const [body] = [...packBodies([transaction], [0], 0, { limit: 9_000_000, maxBytes: 9_000_000 })];
			if ('refusal' in body) throw new Error(body.refusal.problem);
			return { bodyBytes: body.bytes.length, bufferBytes: body.bytes.buffer.byteLength };
		};
		// Larger than Node's pool hands out, so the memory behind the body is its own: at most
		// double the body (the buffer grows by doubling), far from the limit's 9,000,000 bytes.
		const large = bufferBehind({ order: 'A-1', notes: 'x'.repeat(50_000) });
		expect(large.bodyBytes).toBeGreaterThan(50_000);
		expect(large.bufferBytes).toBeGreaterThanOrEqual(large.bodyBytes);
		expect(large.bufferBytes).toBeLessThanOrEqual(2 * large.bodyBytes);
		// A small body shares Node's pool with other small buffers rather than holding one of its own.
		expect(bufferBehind({ order: 'A-1', total: 59.9 }).bufferBytes).toBeLessThanOrEqual(Buffer.poolSize);
	});

	it('packs nothing for no transactions, and one body for one', () => {
		expect(packed([], 1024)).toEqual({ refused: [], bodies: [] });
		expect(packed([{ a: 'ü' }], 1024)).toEqual({ refused: [], bodies: [{ items: [0], body: Buffer.from('[{"a":"ü"}]').toString('hex') }] });
	});
});
