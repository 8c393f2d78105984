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

	const countOnly = { resource: 'report', operation: 'countBlocks' };
	const answerCount = (body: string) =>
		double().faults.failNext(1, 200, { body, contentType: 'application/vnd.service.api+xml; charset=utf-8', match: 'reports/blocks/count' });

	it.each([
		['the count element alone', '<?xml version="1.0" encoding="UTF-8"?>\n<count>17</count>'],
		['a wrapper around it', '<?xml version="1.0"?><result><count>17</count></result>'],
		['wrappers with other elements beside it', '<report><from>2024-05-01</from><result><total><count> 17 </count></total><pages>1</pages></result></report>'],
	])('reads the count from %s', async (_form, body) => {
		answerCount(body);

		const result = await runNode({ credentials: credentials(), parameters: countOnly });

		expect(result.main).toEqual([{ count: 17 }]);
	});

	it.each([
		['an empty body', '', 'holds no count', 'It answered with an empty body.'],
		['XML without a count', '<result><total>many</total></result>', 'holds no count', 'It answered: <result><total>many</total></result>'],
		['a negative count', '<count>-3</count>', 'holds no count', 'It answered: <count>-3</count>'],
		['a bare number (not the XML the service sends)', '17', 'could not be read: The answer is not XML', 'Nothing of it was used.'],
	])('refuses %s rather than guess a count', async (_form, body, problem, description) => {
		answerCount(body);

		const result = await runNode({ credentials: credentials(), parameters: countOnly });

		expect(result.error?.message).toContain(`answer to GET reports/blocks/count ${problem}`);
		expect(result.error?.description).toContain(description);
		expect(result.main).toEqual([]);
	});
});
