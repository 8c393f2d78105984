import { useServiceDouble } from '../harness/double';
import { pollWorkflow, runPoll, savedState } from '../harness/poll';

describe('mailingPlatformTrigger › blockStatusChanged', () => {
	const { double, credentials } = useServiceDouble();
	const poll = async (workflow: ReturnType<typeof pollWorkflow>, mode: 'trigger' | 'manual' = 'trigger') =>
		await runPoll(workflow, credentials(), mode);
	const ids = (items: Array<Record<string, unknown>>) => items.map((item) => item.contactId);

	it('emits nothing on the first poll, then each new block once', async () => {
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 1 });
		double().reports.addBlock({ at: '2024-05-01T08:00:05Z', contactId: 2 });
		const workflow = pollWorkflow();

		expect(await poll(workflow)).toEqual([]);
		expect(await poll(workflow)).toEqual([]);

		double().reports.addBlock({ at: '2024-05-01T08:01:00Z', contactId: 3, email: 'ada@example.com' });
		const items = await poll(workflow);

		expect(items).toEqual([
			expect.objectContaining({ contactId: 3, email: 'ada@example.com', timestamp: '2024-05-01T10:01:00.000+02:00', newStatus: 'blocked' }),
		]);
		expect(await poll(workflow)).toEqual([]);
	});

	it('emits blocks of the cursor’s own second once each, across polls', async () => {
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 1 });
		const workflow = pollWorkflow();
		await poll(workflow);

		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 2 });
		expect(ids(await poll(workflow))).toEqual([2]);

		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 3 });
		double().reports.addBlock({ at: '2024-05-01T08:00:01Z', contactId: 4 });
		expect(ids(await poll(workflow))).toEqual([3, 4]);

		double().reports.addBlock({ at: '2024-05-01T08:00:01Z', contactId: 5 });
		expect(ids(await poll(workflow))).toEqual([5]);
		expect(await poll(workflow)).toEqual([]);
		const fromDates = double()
			.requestsTo('reports/blocks')
			.map((request) => request.query.find(([key]) => key === 'from_date')?.[1]);
		expect(fromDates.at(-1)).toBe(String(Date.parse('2024-05-01T08:00:01Z')));
	});

	it('emits 2,500 new blocks across 3 pages, all in time order', async () => {
		double().reports.addBlock({ at: '2024-04-30T00:00:00Z', contactId: 1 });
		const workflow = pollWorkflow();
		await poll(workflow);

		double().reports.generateBlocks(2500, { start: '2024-05-01T00:00:00Z', stepMs: 500 });
		double().requests.length = 0;
		const items = await poll(workflow);

		expect(items).toHaveLength(2500);
		expect(new Set(ids(items)).size).toBe(2500);
		const times = items.map((item) => Date.parse(item.timestamp as string));
		expect(times).toEqual([...times].sort((a, b) => a - b));
		expect(double().requestsTo('reports/blocks')).toHaveLength(3);
		expect(await poll(workflow)).toEqual([]);
	});

	it('continues after a restart from the saved state', async () => {
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 1 });
		const first = pollWorkflow();
		await poll(first);
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 2 });
		expect(ids(await poll(first))).toEqual([2]);

		const restarted = pollWorkflow({ staticData: savedState(first) });
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 3 });

		expect(ids(await poll(restarted))).toEqual([3]);
	});

	it('does not move the cursor when a poll fails, so nothing is skipped', async () => {
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 1 });
		const workflow = pollWorkflow();
		await poll(workflow);
		const before = savedState(workflow);

		double().reports.addBlock({ at: '2024-05-01T09:00:00Z', contactId: 2 });
		double().faults.failNext(1, 500, { match: 'reports/blocks' });
		expect(await poll(workflow)).toEqual([]);
		expect(savedState(workflow)).toEqual(before);

		expect(ids(await poll(workflow))).toEqual([2]);
	});

	it('sends the reason and new-status filters and returns full records without Simplify', async () => {
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', reason: 'bounce_policy' });
		const workflow = pollWorkflow({ parameters: { simplify: false, filters: { reasons: ['bounce_policy'], newStatus: 'blocked' } } });
		await poll(workflow);
		double().reports.addBlock({ at: '2024-05-01T08:00:02Z', contactId: 77, reason: 'bounce_policy' });
		double().reports.addBlock({ at: '2024-05-01T08:00:03Z', contactId: 78, reason: 'blacklist' });

		const items = await poll(workflow);

		expect(items).toEqual([expect.objectContaining({ reason: 'bounce_policy', timestampIso: '2024-05-01T10:00:02.000+02:00' })]);
		expect((items[0].contact as { id: number }).id).toBe(77);
		const [request] = double().requestsTo('reports/blocks');
		expect(request.query).toEqual(expect.arrayContaining([['reasons', 'bounce_policy'], ['new_status', 'blocked']]));
	});

	it('in a manual test run returns the latest block and leaves the state alone', async () => {
		double().reports.generateBlocks(30, { start: '2024-05-01T00:00:00Z', stepMs: 1000 });
		const workflow = pollWorkflow();

		const items = await poll(workflow, 'manual');

		expect(items).toHaveLength(1);
		expect(items[0].timestamp).toBe('2024-05-01T02:00:29.000+02:00');
		expect(savedState(workflow)).toEqual({});
	});

	it('in a manual test run fails with the service’s message', async () => {
		double().faults.failNext(1, 403, { match: 'reports/blocks' });

		await expect(poll(pollWorkflow(), 'manual')).rejects.toThrow('Injected 403');
	});

	it('starts from the current time when the report is still empty', async () => {
		const workflow = pollWorkflow();
		expect(await poll(workflow)).toEqual([]);

		double().reports.addBlock({ at: new Date(), contactId: 5 });

		expect(ids(await poll(workflow))).toEqual([5]);
	});
});
