import { useServiceDouble } from '../harness/double';
import { runNode } from '../harness/workflow';

/** Defaults changed in node version 1.1; workflows saved with version 1 keep the old ones. */
describe('defaults by node version', () => {
	const { double, credentials } = useServiceDouble();

	const reasons = async (typeVersion: number) => {
		double().reports.addUnsubscriptions('too_many_mails', 17);
		double().reports.addUnsubscriptions('no_demand', 42);
		double().reports.addUnsubscriptions('moved', 3);
		const result = await runNode({
			credentials: credentials(),
			typeVersion,
			parameters: { resource: 'report', operation: 'getUnsubscriptionReasons' },
		});
		expect(result.error).toBeUndefined();
		return result.main.map((entry) => entry.reason);
	};

	it('version 1.1 lists unsubscription reasons most frequent first', async () => {
		expect(await reasons(1.1)).toEqual(['no_demand', 'too_many_mails', 'moved']);
	});

	it('version 1 keeps the rarest reason first', async () => {
		expect(await reasons(1)).toEqual(['moved', 'too_many_mails', 'no_demand']);
	});

	const firstBlock = async (typeVersion: number) => {
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 7, email: 'ada@example.com' });
		const result = await runNode({
			credentials: credentials(),
			typeVersion,
			parameters: { resource: 'report', operation: 'getBlocks' },
		});
		expect(result.error).toBeUndefined();
		return result.main[0];
	};

	it('version 1.1 Get Blocks simplifies by default, as the trigger does', async () => {
		expect(await firstBlock(1.1)).toMatchObject({ contactId: 7, email: 'ada@example.com' });
	});

	it('version 1 Get Blocks keeps the full record by default', async () => {
		expect(await firstBlock(1)).toMatchObject({ contact: expect.objectContaining({ id: 7, email: 'ada@example.com' }) });
	});

	const importWithoutPermission = async (typeVersion: number) =>
		await runNode({
			credentials: credentials(),
			typeVersion,
			parameters: {
				resource: 'transaction',
				operation: 'create',
				typeId: 1,
				contactMode: 'import',
				contactEmail: 'new@example.com',
				content: '={{ { "order.id": "A-1" } }}',
			},
		});

	it('version 1.1 creates a missing contact with permission 2 when none was chosen', async () => {
		const result = await importWithoutPermission(1.1);
		expect(result.error).toBeUndefined();
		expect(double().transactions.queued.map((queued) => queued.transaction)).toEqual([
			{ type: 1, import: { contact: { email: 'new@example.com', permission: 2 }, content: { 'order.id': 'A-1' } } },
		]);
	});

	it('version 1 still refuses a missing permission before sending, as it did', async () => {
		const result = await importWithoutPermission(1);
		expect(result.error?.message).toContain('Permission must be a whole number from 2 to 6');
		expect(double().requestsTo('transactions')).toHaveLength(0);
	});
});
