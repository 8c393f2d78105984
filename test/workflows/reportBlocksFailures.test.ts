import { useServiceDouble } from '../harness/double';
import { blockRequests, getBlocks } from '../harness/reports';
import { runNode } from '../harness/workflow';

describe('report › getBlocks in a workflow: retries and unreadable answers', () => {
	const { double, credentials } = useServiceDouble();

	it('retries a 503 on page 2 and still returns every block', async () => {
		double().reports.generateBlocks(2500);
		double().reports.failPage(2, 503);

		const result = await runNode({ credentials: credentials(), parameters: getBlocks({ returnAll: true }) });

		expect(result.error).toBeUndefined();
		expect(result.main).toHaveLength(2500);
		expect(blockRequests(double()).map((request) => request.status)).toEqual(expect.arrayContaining([503, 200, 200, 200]));
		expect(blockRequests(double())).toHaveLength(4);
	});

	it('retries one 500 on page 2 of Return All, since reading is safe to repeat, and returns every block', async () => {
		double().reports.generateBlocks(2500, { start: '2024-05-01T00:00:00Z', stepMs: 1000 });
		double().reports.failPage(2, 500);

		const result = await runNode({ credentials: credentials(), parameters: getBlocks({ returnAll: true, simplify: false }) });

		expect(result.error).toBeUndefined();
		expect(result.main).toHaveLength(2500);
		expect(new Set(result.main.map((item) => (item.contact as { id: number }).id)).size).toBe(2500);
		expect(blockRequests(double()).map((request) => request.status).sort()).toEqual([200, 200, 200, 500]);
	});

	it('fails naming the page and the attempts made when a page keeps failing, with no partial output', async () => {
		double().reports.generateBlocks(2500);
		double().reports.failPage(2, 500, 5, '0');

		const result = await runNode({ credentials: credentials(), parameters: getBlocks({ returnAll: true }) });

		expect(result.error?.message).toBe('Injected 500 on page 2 (page 2 of 3)');
		expect(result.error?.description).toContain('Attempts made: 5.');
		expect(result.error?.httpCode).toBe('500');
		expect(result.main).toEqual([]);
	});

	it.each([
		// Cut after a whole block: what is left parses to 500 blocks unless the document is checked.
		['cut in half', (page: string) => page.slice(0, page.indexOf('</block>', page.length / 2) + '</block>'.length)],
		['with a closing tag that does not match', (page: string) => page.replace('</email>', '</emial>')],
	])('refuses a page %s, with no partial output', async (_, damage) => {
		double().reports.generateBlocks(1000);
		const page = double().reports.handle({
			method: 'GET',
			segments: ['reports', 'blocks'],
			query: new URLSearchParams({ page_size: '1000' }),
			headers: {},
			body: Buffer.alloc(0),
		});
		double().faults.failNext(1, 200, { match: 'reports/blocks', body: damage(page?.body ?? '') });

		const result = await runNode({ credentials: credentials(), parameters: getBlocks({ returnAll: true }) });

		expect(result.error?.message).toContain("The service's answer to GET reports/blocks could not be read: Malformed XML");
		expect(result.main).toEqual([]);
	});

	it('retries a connection dropped on a page, since reading a report is safe to repeat', async () => {
		double().reports.generateBlocks(1500);
		double().faults.dropNext(1, { match: 'reports/blocks' });

		const result = await runNode({ credentials: credentials(), parameters: getBlocks({ returnAll: true }) });

		expect(result.error).toBeUndefined();
		expect(result.main).toHaveLength(1500);
	});

	it('refuses a report page that declares a DOCTYPE with entities, naming the operation and expanding nothing', async () => {
		const page = '<?xml version="1.0"?><!DOCTYPE blocks [<!ENTITY who "INJECTED">]><blocks><block><reason>&who;</reason></block></blocks>';
		double().faults.failNext(1, 200, { match: 'reports/blocks', body: page });

		const result = await runNode({ credentials: credentials(), parameters: getBlocks({ returnAll: true }), onError: 'continueRegularOutput' });

		expect(result.main).toEqual([
			{
				error: expect.stringContaining("The service's answer to GET reports/blocks could not be read: it declares a DOCTYPE or entities"),
				message: expect.stringContaining('Nothing of it was used'),
			},
		]);
		expect(JSON.stringify(result.main)).not.toContain('INJECTED');
	});
});
