import { useServiceDouble } from '../harness/double';
import { jsonMode, order } from '../harness/transactions';
import { runNode } from '../harness/workflow';

/** The real service answers some errors as plain text instead of its XML `<error>`: its words are shown all the same. */
describe('the service’s own words in error answers that are not XML', () => {
	const { double, credentials } = useServiceDouble();
	const TEXT = 'text/plain; charset=utf-8';

	it('shows a mailing check’s plain-text 404 as the message, beside what to do', async () => {
		double().faults.plainTextErrors = true;

		const result = await runNode({
			credentials: credentials(),
			parameters: { resource: 'mailing', operation: 'startBounceCheck', mailingId: 3108 },
		});

		expect(result.error?.message).toBe('Mailing with id 3108 not found.');
		expect(result.error?.description).toContain('No mailing with ID 3108 was found. Check Mailing ID.');
		expect(result.error?.httpCode).toBe('404');
		expect(double().requestsTo('mailings/3108')).toMatchObject([{ status: 404, answerType: TEXT }]);
	});

	it('shows the plain-text 400 of a transactions POST on its items, beside what to do', async () => {
		double().faults.plainTextErrors = true;
		const strict = { ...jsonMode, options: { ignoreInvalidTransactions: false } };
		const items = [order(0), { ...order(1), contact: { email: 'nobody@example.com' } }];

		const result = await runNode({ credentials: credentials(), parameters: strict, items, onError: 'continueRegularOutput' });

		expect(result.main).toHaveLength(2);
		for (const item of result.main) {
			expect(item.error).toContain('No valid contact identification provided for transaction.');
			expect(item.message).toContain('With Ignore Invalid Transactions off, one invalid transaction fails its whole request');
		}
		expect(double().requestsTo('transactions')).toMatchObject([{ status: 400, answerType: TEXT }]);
		expect(double().transactions.queuedOrderIds()).toEqual([]);
	});

	it('shows a report’s plain-text 500 once the retries are used up', async () => {
		double().faults.plainTextErrors = true;
		double().faults.failNext(5, 500, { retryAfter: '0', match: 'reports/blocks/count' });

		const result = await runNode({ credentials: credentials(), parameters: { resource: 'report', operation: 'countBlocks' } });

		expect(result.error?.message).toBe('Injected 500');
		expect(result.error?.description).toBe('The service failed to answer. Try again later. Attempts made: 5.');
		expect(result.error?.httpCode).toBe('500');
		expect(double().requestsTo('reports/blocks/count')).toMatchObject(Array(5).fill({ status: 500, answerType: TEXT }));
	});

	it('bounds an over-long plain-text answer to one line of 300 characters', async () => {
		const sentence = 'The custom field cannot be renamed while an import is running. ';
		double().faults.failNext(1, 409, { body: `${sentence}\n\n${sentence.repeat(50)}`, contentType: 'text/plain', match: 'contacts/fields' });

		const result = await runNode({
			credentials: credentials(),
			parameters: { resource: 'contactField', operation: 'rename', oldName: 'shoe size', newName: 'shoe size eu' },
		});

		const message = result.error?.message ?? '';
		expect(message.startsWith(`${sentence}${sentence}`)).toBe(true);
		expect(message.endsWith('…')).toBe(true);
		expect(message.length).toBeLessThanOrEqual(300);
		expect(message).not.toContain('\n');
		expect(result.error?.httpCode).toBe('409');
	});

	it('reads the message of a JSON error body', async () => {
		double().faults.failNext(1, 400, {
			body: '{"status": 400, "message": "Planned date is not a date."}',
			contentType: 'application/json',
			match: 'schedule',
		});

		const result = await runNode({
			credentials: credentials(),
			parameters: { resource: 'mailing', operation: 'schedule', mailingId: 1001, scheduledAt: '2099-01-01T10:00:00' },
		});

		expect(result.error?.message).toBe('Planned date is not a date.');
		expect(result.error?.httpCode).toBe('400');
	});
});
