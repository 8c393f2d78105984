import { useServiceDouble } from '../harness/double';
import { useN8nClock } from '../harness/clock';
import { pollWorkflow, runPoll, savedState } from '../harness/poll';
import type { CredentialValues } from '../harness/workflow';

type Items = Array<Record<string, unknown>>;
const ids = (items: Items) => items.map((item) => item.contactId);
const MINUTE = 60_000;

describe('mailingPlatformTrigger › blockStatusChanged', () => {
	const { double, credentials } = useServiceDouble();
	const clock = useN8nClock();
	const poll = async (workflow: ReturnType<typeof pollWorkflow>, mode: 'trigger' | 'manual' = 'trigger', credential?: CredentialValues) =>
		await runPoll(workflow, credential ?? credentials(), mode);

	it('emits nothing on the first poll, then each new block once, its time the instant the double recorded', async () => {
		clock.set('2024-05-01T08:00:30Z');
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 1 });
		double().reports.addBlock({ at: '2024-05-01T08:00:05Z', contactId: 2 });
		const workflow = pollWorkflow();

		expect(await poll(workflow)).toEqual([]);
		clock.advance(MINUTE);
		expect(await poll(workflow)).toEqual([]);

		double().reports.addBlock({ at: '2024-05-01T08:01:40Z', contactId: 3, email: 'ada@example.com' });
		clock.advance(MINUTE);
		const items = await poll(workflow);

		expect(items).toEqual([
			expect.objectContaining({ contactId: 3, email: 'ada@example.com', timestamp: '2024-05-01T10:01:40.000+02:00', newStatus: 'blocked' }),
		]);
		clock.advance(MINUTE);
		expect(await poll(workflow)).toEqual([]);
	});

	it('asks from the previous poll’s start on n8n’s clock minus the lookback', async () => {
		clock.set('2024-05-01T08:00:00Z');
		const workflow = pollWorkflow({ parameters: { options: { lookbackMinutes: 2 } } });
		await poll(workflow);
		clock.set('2024-05-01T08:10:00Z');
		await poll(workflow);

		const fromDates = double()
			.requestsTo('reports/blocks')
			.map((request) => request.query.find(([key]) => key === 'from_date')?.[1]);
		expect(fromDates).toEqual([String(Date.parse('2024-05-01T07:58:00Z')), String(Date.parse('2024-05-01T07:58:00Z'))]);
	});

	it('emits 2,500 new blocks across 3 pages, all in time order', async () => {
		clock.set('2024-05-01T00:00:00Z');
		const workflow = pollWorkflow();
		await poll(workflow);

		double().reports.generateBlocks(2500, { start: '2024-05-01T00:00:01Z', stepMs: 500 });
		clock.set('2024-05-01T00:30:00Z');
		double().requests.length = 0;
		const items = await poll(workflow);

		expect(items).toHaveLength(2500);
		expect(new Set(ids(items)).size).toBe(2500);
		const times = items.map((item) => Date.parse(item.timestamp as string));
		expect(times).toEqual([...times].sort((a, b) => a - b));
		expect(double().requestsTo('reports/blocks')).toHaveLength(3);
		clock.advance(MINUTE);
		expect(await poll(workflow)).toEqual([]);
	});

	it('continues after a restart from the saved state, with nothing repeated', async () => {
		clock.set('2024-05-01T08:00:00Z');
		const first = pollWorkflow();
		await poll(first);
		double().reports.addBlock({ at: '2024-05-01T08:00:30Z', contactId: 2 });
		clock.set('2024-05-01T08:01:00Z');
		expect(ids(await poll(first))).toEqual([2]);

		const restarted = pollWorkflow({ staticData: savedState(first) });
		double().reports.addBlock({ at: '2024-05-01T08:01:30Z', contactId: 3 });
		clock.set('2024-05-01T08:02:00Z');

		expect(ids(await poll(restarted))).toEqual([3]);
	});

	it('throws on a refused key in an active workflow, keeps its state, and emits every block once the key is fixed', async () => {
		clock.set('2024-05-01T08:00:00Z');
		const workflow = pollWorkflow();
		await poll(workflow);
		const before = savedState(workflow);

		double().reports.addBlock({ at: '2024-05-01T08:00:40Z', contactId: 2 });
		clock.set('2024-05-01T08:01:00Z');
		const refused = poll(workflow, 'trigger', credentials({ apiKey: 'revoked-key' }));
		await expect(refused).rejects.toThrow('Authentication failed.');
		await expect(refused).rejects.toMatchObject({ httpCode: '401', description: expect.stringContaining('Check the API key') });
		expect(savedState(workflow)).toEqual(before);

		// Fixed an hour later; blocks kept coming meanwhile.
		double().reports.addBlock({ at: '2024-05-01T08:30:00Z', contactId: 3 });
		clock.set('2024-05-01T09:01:00Z');
		expect(ids(await poll(workflow))).toEqual([2, 3]);
	});

	it('throws when the service stays unavailable, stating the attempts made', async () => {
		clock.set('2024-05-01T08:00:00Z');
		const workflow = pollWorkflow();
		await poll(workflow);
		double().faults.failNext(5, 503, { match: 'reports/blocks', retryAfter: '0' });
		clock.advance(MINUTE);

		await expect(poll(workflow)).rejects.toMatchObject({ httpCode: '503', description: expect.stringContaining('Attempts made: 5.') });
	});

	it('sends the reason and new-status filters and returns full records without Simplify', async () => {
		clock.set('2024-05-01T08:00:01Z');
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', reason: 'bounce_policy' });
		const workflow = pollWorkflow({ parameters: { simplify: false, filters: { reasons: ['bounce_policy'], newStatus: 'blocked' } } });
		await poll(workflow);
		double().reports.addBlock({ at: '2024-05-01T08:00:02Z', contactId: 77, reason: 'bounce_policy' });
		double().reports.addBlock({ at: '2024-05-01T08:00:03Z', contactId: 78, reason: 'blacklist' });
		clock.set('2024-05-01T08:00:10Z');

		const items = await poll(workflow);

		expect(items).toEqual([expect.objectContaining({ reason: 'bounce_policy', timestampIso: '2024-05-01T10:00:02.000+02:00' })]);
		expect((items[0].contact as { id: number }).id).toBe(77);
		const [request] = double().requestsTo('reports/blocks');
		expect(request.query).toEqual(expect.arrayContaining([['reasons', 'bounce_policy'], ['new_status', 'blocked']]));
	});

	it('takes Reasons given as a comma-separated expression, as Get Blocks does', async () => {
		clock.set('2024-05-01T08:00:01Z');
		await poll(pollWorkflow({ parameters: { filters: { reasons: 'bounce_policy, blacklist' } } }));

		const [request] = double().requestsTo('reports/blocks');
		expect(request.query.filter(([name]) => name === 'reasons')).toEqual([
			['reasons', 'bounce_policy'],
			['reasons', 'blacklist'],
		]);
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
});
