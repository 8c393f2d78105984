import { createServer } from 'node:net';

import { useServiceDouble } from '../harness/double';
import { jsonMode } from '../harness/transactions';
import { credentialDecryptions, runNode } from '../harness/workflow';

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

		expect(result.error?.message).toBe("The service answered 502 Bad Gateway; the request's outcome is unknown");
		expect(result.error?.description).toContain('Attempts made: 1.');
		expect(double().requests).toHaveLength(1);
	});

	it('does not resend transactions after a 500 on their POST, and every item says the outcome is unknown, also as outcomeUnknown: true', async () => {
		double().faults.failNext(1, 500, { match: 'transactions' });
		const items = ['anna@example.com', 'ben@example.com'].map((email) => ({ type: 1, contact: { email }, content: { 'order.id': email } }));

		const result = await runNode({
			credentials: credentials(),
			parameters: jsonMode,
			items,
			onError: 'continueRegularOutput',
		});

		expect(double().requestsTo('transactions')).toHaveLength(1);
		expect(result.main).toHaveLength(2);
		for (const item of result.main) {
			expect(item).toMatchObject({ queued: false, outcomeUnknown: true, notSentYet: false });
			expect(item.error).toContain("Injected 500; the request's outcome is unknown");
			expect(item.message).toContain('It was not sent again');
			expect(item.message).toContain('Attempts made: 1.');
		}
	});

	it('retries a read on 500, 502 and 504, also when Retry-After is an HTTP date', async () => {
		double().faults.failNext(1, 500, { match: 'testsendout', retryAfter: new Date(Date.now() - 1000).toUTCString() });
		double().faults.failNext(1, 502, { match: 'testsendout', retryAfter: '0' });
		double().faults.failNext(1, 504, { match: 'testsendout', retryAfter: '0' });

		const result = await runNode({
			credentials: credentials(),
			parameters: { resource: 'mailing', operation: 'getTestSendOutResult', mailingId: 1001 },
		});

		expect(result.error).toBeUndefined();
		expect(result.main[0]).toMatchObject({ mailingId: 1001, state: 'success' });
		expect(double().requests.map((request) => request.status)).toEqual([500, 502, 504, 200]);
	});

	it('does not start a check again after a 500, since the first start may have taken effect', async () => {
		double().faults.failNext(1, 500, { match: 'checks/bounce' });

		const result = await runNode({
			credentials: credentials(),
			parameters: { resource: 'mailing', operation: 'startBounceCheck', mailingId: 1001 },
		});

		expect(result.error?.message).toBe("Injected 500; the request's outcome is unknown");
		expect(result.error?.description).toContain('Attempts made: 1.');
		expect(double().requestsTo('mailings/')).toHaveLength(1);
	});

	describe('which failed requests are sent again', () => {
		const read = { resource: 'mailing', operation: 'getTestSendOutResult', mailingId: 1001 };

		// A read may be repeated after any answer that says the service is busy or failed on the way.
		it.each([
			[400, 1], [401, 1], [403, 1], [404, 1], [409, 1], [413, 1], [429, 2], [500, 2], [501, 1], [502, 2], [503, 2], [504, 2],
		])('a read answered %i is sent %i time(s)', async (status, times) => {
			double().faults.failNext(1, status, { match: 'testsendout', retryAfter: '0' });

			const result = await runNode({ credentials: credentials(), parameters: read });

			expect(double().requests.map((request) => request.status)).toEqual(times === 2 ? [status, 200] : [status]);
			expect(result.error === undefined).toBe(times === 2);
		});

		// A write only where the service says it did not act: after 500, 502 or 504 it may have renamed the field.
		it.each([
			[400, 1, 'failed'], [429, 2, 'renamed'], [500, 1, 'outcome unknown'], [502, 1, 'outcome unknown'], [503, 2, 'renamed'], [504, 1, 'outcome unknown'],
		])('a rename answered %i is sent %i time(s), and then reads %s', async (status, times, reads) => {
			double().faults.failNext(1, status, { retryAfter: '0' });

			const result = await runNode({ credentials: credentials(), parameters });

			expect(double().requests).toHaveLength(times);
			const outcome = result.error === undefined ? 'renamed' : result.error.message.includes("the request's outcome is unknown") ? 'outcome unknown' : 'failed';
			expect(outcome).toBe(reads);
		});

		it('sends a rename again when the connection was refused, since nothing reached the service, until the attempts are spent', async () => {
			// A port nothing listens on: taken from the system, then given back.
			const port = await new Promise<number>((resolve) => {
				const server = createServer().listen(0, '127.0.0.1', () => {
					const { port: free } = server.address() as { port: number };
					server.close(() => resolve(free));
				});
			});

			const result = await runNode({ credentials: credentials({ baseUrl: `http://127.0.0.1:${port}/1.0` }), parameters });

			expect(result.error?.message).toBe('The service could not be reached');
			expect(result.error?.description).toContain('ECONNREFUSED');
			expect(result.error?.description).toContain('Attempts made: 5.');
		});
	});

	it('decrypts the credential once per execution, however many requests and readers need it', async () => {
		const getBlocks = { resource: 'report', operation: 'getBlocks', returnAll: true };
		double().reports.generateBlocks(2_500);
		credentialDecryptions.count = 0;
		await runNode({ credentials: credentials({ platformTimeZone: 'Europe/Berlin' }), parameters: getBlocks });
		const pages = double().requestsTo('reports/blocks').length;
		const createRequests = { ...jsonMode, options: { maxRequestBytes: 1024 } };
		const orders = [0, 1, 2].map((index) => ({ type: 1, contact: { email: 'anna@example.com' }, content: { 'order.id': `A-${index}`, padding: 'x'.repeat(600) } }));
		await runNode({ credentials: credentials(), parameters: createRequests, items: orders });

		expect(pages).toBe(3);
		expect(double().requestsTo('transactions')).toHaveLength(3);
		expect(credentialDecryptions.count).toBe(2);
	});
});
