import { useServiceDouble } from '../harness/double';
import { blockRequests, getBlocks, queryValues } from '../harness/reports';
import { runNode } from '../harness/workflow';

describe('report › getBlocks in a workflow', () => {
	const { double, credentials } = useServiceDouble();

	it('returns all 2,320 blocks in 3 requests of 1,000, in time order', async () => {
		double().reports.generateBlocks(2320, { start: '2024-05-01T00:00:00Z', stepMs: 1000 });

		const result = await runNode({ credentials: credentials(), parameters: getBlocks({ returnAll: true, simplify: false }) });

		expect(result.error).toBeUndefined();
		expect(result.main).toHaveLength(2320);
		expect(blockRequests(double())).toHaveLength(3);
		expect(blockRequests(double()).map((request) => queryValues(request.query, 'page_size'))).toEqual([['1000'], ['1000'], ['1000']]);
		const times = result.main.map((item) => item.timestampIso as string);
		expect(times[0]).toBe('2024-05-01T02:00:00.000+02:00');
		expect(times[2319]).toBe('2024-05-01T02:38:39.000+02:00');
		expect(new Set(result.main.map((item) => (item.contact as { id: number }).id)).size).toBe(2320);
	});

	it('with Limit 150 and filters asks for 150, sends the dates as epoch milliseconds and gets only matching blocks', async () => {
		double().reports.generateBlocks(2000, { start: '2024-05-01T00:00:00Z', stepMs: 60_000 });

		const result = await runNode({
			credentials: credentials(),
			parameters: getBlocks({
				limit: 150,
				simplify: false,
				filters: {
					fromDate: '2024-05-01T06:00:00',
					toDate: '2024-05-02T00:00:00Z',
					reasons: ['bounce_policy'],
					oldStatus: 'allowed',
					newStatus: 'blocked',
				},
			}),
		});

		expect(result.error).toBeUndefined();
		expect(result.main).toHaveLength(150);
		const [request] = blockRequests(double());
		expect(blockRequests(double())).toHaveLength(1);
		// 06:00 in the workflow's timezone (Europe/Berlin, UTC+2 in May) is 04:00 UTC.
		expect(queryValues(request.query, 'from_date')).toEqual([String(Date.parse('2024-05-01T04:00:00Z'))]);
		expect(queryValues(request.query, 'to_date')).toEqual([String(Date.parse('2024-05-02T00:00:00Z'))]);
		expect(queryValues(request.query, 'page_size')).toEqual(['150']);
		for (const block of result.main) {
			expect(block).toMatchObject({ reason: 'bounce_policy', old_status: 'allowed', new_status: 'blocked' });
			expect(Date.parse(block.timestampIso as string)).toBeGreaterThanOrEqual(Date.parse('2024-05-01T04:00:00Z'));
		}
	});

	it('sends two e-mails, IDs and fields as repeated keys and returns the requested standard field, nil as null', async () => {
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 7, email: 'ada@example.com', standardFields: { FIRSTNAME: 'Ada' } });
		double().reports.addBlock({ at: '2024-05-01T08:00:01Z', contactId: 8, email: 'grace@example.com', standardFields: { FIRSTNAME: null } });
		double().reports.addBlock({ at: '2024-05-01T08:00:02Z', contactId: 9, email: 'other@example.com' });

		const result = await runNode({
			credentials: credentials(),
			parameters: getBlocks({
				returnAll: true,
				simplify: false,
				filters: { emails: ' ada@example.com, ,grace@example.com ', standardFields: 'FIRSTNAME' },
			}),
		});

		expect(result.error).toBeUndefined();
		const [request] = blockRequests(double());
		expect(queryValues(request.query, 'emails')).toEqual(['ada@example.com', 'grace@example.com']);
		expect(queryValues(request.query, 'standard_field')).toEqual(['FIRSTNAME']);
		expect(queryValues(request.query, 'exclude_anonymous_blocks')).toEqual(['true']);
		expect(result.main.map((block) => (block.contact as { standard_fields: unknown }).standard_fields)).toEqual([
			[{ name: 'FIRSTNAME', value: 'Ada' }],
			[{ name: 'FIRSTNAME', value: null }],
		]);
		expect(result.main[0]).toMatchObject({
			timestamp: '2024-05-01 10:00:00',
			timestampIso: '2024-05-01T10:00:00.000+02:00',
			contact: { id: 7, email: 'ada@example.com', external_id: null, custom_fields: [], updatedIso: '2024-05-01T10:00:00.000+02:00' },
		});
	});

	it('simplifies a block to a flat item with fields by name', async () => {
		double().reports.addBlock({
			at: '2024-01-15T09:30:00Z',
			contactId: 42,
			email: 'ada@example.com',
			externalId: 'CRM-42',
			reason: 'bounce_policy',
			standardFields: { FIRSTNAME: 'Ada', LASTNAME: null },
			customFields: { 'shoe size': '38' },
		});

		const result = await runNode({
			credentials: credentials(),
			parameters: getBlocks({
				simplify: true,
				filters: { standardFields: 'FIRSTNAME,LASTNAME', customFields: 'shoe size', contactIds: '42' },
			}),
		});

		expect(result.main).toEqual([
			{
				contactId: 42,
				email: 'ada@example.com',
				externalId: 'CRM-42',
				timestamp: '2024-01-15T10:30:00.000+01:00',
				oldStatus: 'allowed',
				newStatus: 'blocked',
				reason: 'bounce_policy',
				standardFields: { FIRSTNAME: 'Ada', LASTNAME: null },
				customFields: { 'shoe size': '38' },
			},
		]);
		expect(queryValues(blockRequests(double())[0].query, 'ids')).toEqual(['42']);
	});

	it('includes anonymous blocks only when asked to', async () => {
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z' });
		double().reports.addAnonymousBlock({ at: '2024-05-01T08:00:05Z' });

		const excluded = await runNode({ credentials: credentials(), parameters: getBlocks({ returnAll: true, simplify: false }) });
		const included = await runNode({
			credentials: credentials(),
			parameters: getBlocks({ returnAll: true, simplify: false, filters: { excludeAnonymousBlocks: false } }),
		});

		expect(excluded.main).toHaveLength(1);
		expect(included.main).toHaveLength(2);
		expect(included.main[1].contact).toBeNull();
	});

	it('refuses From after To before sending anything', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: getBlocks({ filters: { fromDate: '2024-05-02T00:00:00', toDate: '2024-05-01T00:00:00' } }),
		});

		expect(result.error?.message).toBe('From is after To');
		expect(double().requests).toHaveLength(0);
	});

	it('runs one query per input item, pairs the blocks to it, and gives one error item for a bad item', async () => {
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 1 });
		double().reports.addBlock({ at: '2024-05-01T08:00:01Z', contactId: 2 });
		double().reports.addBlock({ at: '2024-05-01T08:00:02Z', contactId: 2 });

		const result = await runNode({
			credentials: credentials(),
			parameters: getBlocks({ returnAll: true, simplify: true, filters: { contactIds: '={{ $json.ids }}' } }),
			items: [{ ids: '2' }, { ids: 'x' }, { ids: '1' }],
			onError: 'continueRegularOutput',
		});

		expect(result.main.map((item) => item.contactId ?? item.error)).toEqual([
			2,
			2,
			'Contact IDs contains "x", which is not a contact ID',
			1,
		]);
		expect(result.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('with Limit 1,500 asks for pages the service accepts (at most 1,000 blocks) and returns the first 1,500 in time order', async () => {
		// The double answers a page_size above 1,000 with 400, as the spec limits it.
		double().reports.generateBlocks(2500, { start: '2024-05-01T00:00:00Z', stepMs: 1000 });

		const result = await runNode({ credentials: credentials(), parameters: getBlocks({ limit: 1500, simplify: false }) });

		expect(result.error).toBeUndefined();
		expect(blockRequests(double()).map((request) => [request.status, ...queryValues(request.query, 'page_size')])).toEqual([
			[200, '1000'],
			[200, '1000'],
		]);
		const times = result.main.map((item) => item.timestampIso as string);
		expect(times).toHaveLength(1500);
		expect(times[0]).toBe('2024-05-01T02:00:00.000+02:00');
		expect(times[1499]).toBe('2024-05-01T02:24:59.000+02:00');
	});

	describe('times in the platform account’s zone', () => {
		const recorded = Date.parse('2026-07-01T06:15:30Z');
		const contactTimes = (item: Record<string, unknown>) => item.contact as { createdIso: string; updatedIso: string };

		it('reads a Berlin account’s times as the instants recorded, with the workflow in New York', async () => {
			double().reports.addBlock({ at: new Date(recorded), contactId: 5 });

			const result = await runNode({
				credentials: credentials({ platformTimeZone: 'Europe/Berlin' }),
				timezone: 'America/New_York',
				parameters: getBlocks({ returnAll: true, simplify: false }),
			});

			expect(result.main[0]).toMatchObject({ timestamp: '2026-07-01 08:15:30', timestampIso: '2026-07-01T08:15:30.000+02:00' });
			expect(Date.parse(result.main[0].timestampIso as string)).toBe(recorded);
			expect(Date.parse(contactTimes(result.main[0]).updatedIso)).toBe(recorded);
		});

		it('reads them in the workflow’s zone when Platform Time Zone is empty and both zones are the same', async () => {
			double().timeZone = 'America/New_York';
			double().reports.addBlock({ at: new Date(recorded), contactId: 5 });

			const result = await runNode({ credentials: credentials(), timezone: 'America/New_York', parameters: getBlocks({ simplify: true }) });

			expect(result.main[0].timestamp).toBe('2026-07-01T02:15:30.000-04:00');
			expect(Date.parse(result.main[0].timestamp as string)).toBe(recorded);
		});
	});
});
