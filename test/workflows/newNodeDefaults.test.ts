import { useServiceDouble } from '../harness/double';
import { runNode } from '../harness/workflow';

/** What a node fresh from the nodes panel does when the user leaves these parameters alone. */
describe('defaults of a new node', () => {
	const { double, credentials } = useServiceDouble();

	it('Get Unsubscription Reasons lists the most frequent reason first', async () => {
		double().reports.addUnsubscriptions('too_many_mails', 17);
		double().reports.addUnsubscriptions('no_demand', 42);
		double().reports.addUnsubscriptions('moved', 3);

		const result = await runNode({
			credentials: credentials(),
			parameters: { resource: 'report', operation: 'getUnsubscriptionReasons' },
		});

		expect(result.error).toBeUndefined();
		expect(result.main.map((entry) => entry.reason)).toEqual(['no_demand', 'too_many_mails', 'moved']);
	});

	it('Get Blocks returns flat items, as the trigger does', async () => {
		double().reports.addBlock({ at: '2024-05-01T08:00:00Z', contactId: 7, email: 'ada@example.com' });

		const result = await runNode({ credentials: credentials(), parameters: { resource: 'report', operation: 'getBlocks' } });

		expect(result.error).toBeUndefined();
		expect(result.main).toEqual([expect.objectContaining({ contactId: 7, email: 'ada@example.com' })]);
		expect(result.main[0]).not.toHaveProperty('contact');
	});

	it('Create Transaction in import mode gives a missing contact permission 2 when none was chosen', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: {
				resource: 'transaction',
				operation: 'create',
				typeId: 1,
				contactMode: 'import',
				contactEmail: 'new@example.com',
				content: '={{ { "order.id": "A-1" } }}',
			},
		});

		expect(result.error).toBeUndefined();
		expect(double().transactions.queued.map((queued) => queued.transaction)).toEqual([
			{ type: 1, import: { contact: { email: 'new@example.com', permission: 2 }, content: { 'order.id': 'A-1' } } },
		]);
	});
});
