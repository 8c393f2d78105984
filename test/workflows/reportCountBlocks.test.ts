import { useServiceDouble } from '../harness/double';
import { queryValues } from '../harness/reports';
import { runNode } from '../harness/workflow';

describe('report › countBlocks in a workflow', () => {
	const { double, credentials } = useServiceDouble();

	it('counts the blocks matching the filters as a number', async () => {
		double().reports.generateBlocks(40);

		const result = await runNode({
			credentials: credentials(),
			parameters: { resource: 'report', operation: 'countBlocks', filters: { reasons: ['blacklist'] } },
		});

		expect(result.main).toEqual([{ count: 20 }]);
		const [request] = double().requestsTo('reports/blocks/count');
		expect(queryValues(request.query, 'reasons')).toEqual(['blacklist']);
	});

	it.each([
		['a bare number', '17'],
		['JSON', '{"count": 17}'],
		['a wrapped XML count', '<?xml version="1.0"?><result><count>17</count></result>'],
	])('reads the count from %s', async (_form, body) => {
		double().faults.failNext(1, 200, { body, match: 'reports/blocks/count' });

		const result = await runNode({ credentials: credentials(), parameters: { resource: 'report', operation: 'countBlocks' } });

		expect(result.main).toEqual([{ count: 17 }]);
	});
});
