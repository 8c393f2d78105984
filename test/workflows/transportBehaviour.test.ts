import { useServiceDouble } from '../harness/double';
import { runNode } from '../harness/workflow';

/** Retry and failure behaviour every operation inherits from the transport, seen through rename. */
describe('transport behaviour in a workflow', () => {
	const { double, credentials } = useServiceDouble();
	const parameters = { resource: 'contactField', operation: 'rename', oldName: 'shoe size', newName: 'shoe size eu' };

	it('retries 503 and 429 that the service did not take, then succeeds once', async () => {
		double().faults.failNext(1, 503, { retryAfter: '0' });
		double().faults.failNext(1, 429, { retryAfter: '0' });

		const result = await runNode({ credentials: credentials(), parameters });

		expect(result.error).toBeUndefined();
		expect(result.main).toEqual([{ renamed: true, oldName: 'shoe size', newName: 'shoe size eu' }]);
		expect(double().requests.map((request) => request.status)).toEqual([503, 429, 204]);
	});

	it('gives up after a bounded number of attempts and says so', async () => {
		double().faults.failNext(100, 503, { retryAfter: '0' });

		const result = await runNode({ credentials: credentials(), parameters });

		expect(result.error?.httpCode).toBe('503');
		expect(result.error?.description).toContain('Attempts made: 5.');
		expect(double().requests).toHaveLength(5);
	});

	it('does not resend a request that is not repeatable when the connection breaks after sending', async () => {
		double().faults.dropNext(1);

		const result = await runNode({ credentials: credentials(), parameters });

		expect(result.error?.message).toContain('outcome is unknown');
		expect(result.error?.description).toContain('ECONNRESET');
		expect(double().requests).toHaveLength(1);
	});

	it('explains an HTML error page by its status, and does not repeat a rename the service may have done', async () => {
		double().faults.failNext(1, 502, { body: '<html><body><h1>502 Bad Gateway</h1></body></html>' });

		const result = await runNode({ credentials: credentials(), parameters });

		expect(result.error?.message).toBe('The service answered 502 Bad Gateway; the outcome of the request is unknown');
		expect(result.error?.description).toContain('Attempts made: 1.');
		expect(double().requests).toHaveLength(1);
	});
});
