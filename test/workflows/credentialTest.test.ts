import { testCredential } from '../harness/credentialTest';
import { useServiceDouble } from '../harness/double';
import { runNode } from '../harness/workflow';

/**
 * The dialog's "Test" against the double: the request is n8n-core's, n8n's verdict on it a model
 * of its credential tester (see testCredential). n8n-core keeps no HTTP status on the error it
 * throws (2.11.1, as 2.8.4), so n8n shows its own words for 401 and 404 where it does not show
 * the credential's rule; either tells the user what to fix.
 */
describe('the credential test (request by n8n-core; verdict as n8n’s credential tester gives it, modelled)', () => {
	const { double, credentials } = useServiceDouble();

	it('passes with the account’s key, asking the service for one unsubscription reason in its XML', async () => {
		expect(await testCredential(credentials())).toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(double().requests.map(({ method, rawPath, query, accept, status }) => ({ method, rawPath, query, accept, status }))).toEqual([
			{
				method: 'GET',
				rawPath: 'reports/unsubscriptions/reasons',
				query: [['page_size', '1']],
				accept: 'application/vnd.service.api+xml; charset=utf-8',
				status: 200,
			},
		]);
	});

	it('fails with a wrong key, saying that the key was not accepted', async () => {
		const verdict = await testCredential(credentials({ apiKey: 'not-the-key' }));

		expect(verdict.status).toBe('Error');
		expect(["The API key was not accepted: copy the private API key again from the platform's API settings", 'Authorization failed - please check your credentials']).toContain(verdict.message);
		// n8n-core asks once more after a 401, in case the credential refreshes itself.
		expect(double().requests.map((request) => request.status)).toEqual([401, 401]);
	});

	it('fails on a Base URL without the version prefix before sending anything, saying what the Base URL must end with', async () => {
		const baseUrl = double().baseUrl.replace(/\/1\.0$/, '');
		const verdict = await testCredential(credentials({ baseUrl }));

		expect(verdict).toEqual({ status: 'Error', message: `The Base URL must end with the version prefix, e.g. https://api.example.com/1.0 (it is ${baseUrl})` });
		expect(double().requests).toEqual([]);
	});

	it('fails on a Base URL with another version, saying that nothing answers there', async () => {
		const verdict = await testCredential(credentials({ baseUrl: double().baseUrl.replace(/\/1\.0$/, '/2.0') }));

		expect(verdict.status).toBe('Error');
		expect(['Nothing answers at this Base URL: the Base URL must end with the version prefix, e.g. https://api.example.com/1.0', 'The resource you are requesting could not be found']).toContain(verdict.message);
		expect(double().requests.map((request) => `${request.rawPath} ${request.status}`)).toEqual(['/2.0/reports/unsubscriptions/reasons 404']);
	});

	it('fails on a plain http:// Base URL that is not this machine before sending anything', async () => {
		const verdict = await testCredential(credentials({ baseUrl: 'http://api.example.com/1.0' }));

		expect(verdict).toEqual({ status: 'Error', message: 'The Base URL "http://api.example.com/1.0" is not allowed: use an https:// address (plain http:// only works for localhost)' });
		expect(double().requests).toEqual([]);
	});
});

/** The credential on a node's own requests, which n8n-core authenticates with the credential's `authenticate`. */
describe('the credential on a node’s requests', () => {
	const { double, credentials } = useServiceDouble();
	const parameters = { resource: 'report', operation: 'getUnsubscriptionReasons' };

	it('refuses a Base URL without the version prefix before sending anything, saying what to fix', async () => {
		const baseUrl = double().baseUrl.replace(/\/1\.0$/, '');
		const result = await runNode({ credentials: credentials({ baseUrl }), parameters });

		// The report's page the request was for follows, as on every failed page.
		expect(result.error?.message).toBe(`The Base URL must end with the version prefix, e.g. https://api.example.com/1.0 (it is ${baseUrl}) (page 1)`);
		expect(double().requests).toEqual([]);
	});

	it('takes a Base URL with a trailing slash, and the service accepts the key it sends', async () => {
		const result = await runNode({ credentials: credentials({ baseUrl: `${double().baseUrl}/` }), parameters });

		expect(result.error).toBeUndefined();
		expect(double().requests.map((request) => `${request.rawPath} ${request.status}`)).toEqual(['reports/unsubscriptions/reasons 200']);
	});
});
