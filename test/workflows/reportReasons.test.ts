import { useServiceDouble } from '../harness/double';
import { runNode } from '../harness/workflow';

describe('report › getUnsubscriptionReasons in a workflow', () => {
	const { double, credentials } = useServiceDouble();
	const reasonRequests = () => double().requestsTo('reports/unsubscriptions/reasons');

	it('returns reasons ordered by name descending over several pages, with XML entities decoded', async () => {
		const names = Array.from({ length: 1203 }, (_, index) => `reason ${String(index).padStart(4, '0')}`);
		for (const name of names) double().reports.addUnsubscriptions(name);
		double().reports.addUnsubscriptions('other|price & <quality>', 3);
		double().reports.addUnsubscriptions('no_demand', 5);

		const result = await runNode({
			credentials: credentials(),
			parameters: { resource: 'report', operation: 'getUnsubscriptionReasons', returnAll: true, orderBy: 'name', ascending: false },
		});

		expect(result.error).toBeUndefined();
		expect(result.main).toHaveLength(1205);
		expect(result.main.slice(0, 3)).toEqual([
			{ reason: 'reason 1202', count: 1 },
			{ reason: 'reason 1201', count: 1 },
			{ reason: 'reason 1200', count: 1 },
		]);
		expect(result.main.slice(-2)).toEqual([
			{ reason: 'other|price & <quality>', count: 3 },
			{ reason: 'no_demand', count: 5 },
		]);
		expect(reasonRequests()).toHaveLength(2);
		expect(reasonRequests()[0].query).toEqual(
			expect.arrayContaining([
				['order', 'name'],
				['asc', 'false'],
			]),
		);
	});

	it('counts only the period asked for, with Limit', async () => {
		double().reports.addUnsubscriptions('no_demand', 4, '2024-05-01T10:00:00Z');
		double().reports.addUnsubscriptions('too_many_mails', 2, '2024-05-01T10:00:00Z');
		double().reports.addUnsubscriptions('no_demand', 9, '2024-04-01T10:00:00Z');

		const result = await runNode({
			credentials: credentials(),
			parameters: {
				resource: 'report',
				operation: 'getUnsubscriptionReasons',
				limit: 1,
				orderBy: 'count',
				ascending: false,
				filters: { fromDate: '2024-05-01T00:00:00', toDate: '2024-06-01T00:00:00' },
			},
		});

		expect(result.main).toEqual([{ reason: 'no_demand', count: 4 }]);
		expect(reasonRequests()[0].query).toEqual(expect.arrayContaining([['page_size', '1']]));
	});
});
