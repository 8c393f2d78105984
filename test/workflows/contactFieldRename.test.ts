import { useServiceDouble } from '../harness/double';
import { runNode } from '../harness/workflow';

describe('contactField › rename in a workflow', () => {
	const { double, credentials } = useServiceDouble();
	const rename = (oldName: string, newName: string) => ({
		resource: 'contactField',
		operation: 'rename',
		oldName,
		newName,
	});

	it('sends a name with a slash and a space as one encoded path segment', async () => {
		const result = await runNode({ credentials: credentials(), parameters: rename('loyalty tier/level', 'loyalty level') });

		expect(result.error).toBeUndefined();
		expect(result.main).toEqual([{ renamed: true, oldName: 'loyalty tier/level', newName: 'loyalty level' }]);
		const [request] = double().requestsTo('contacts/');
		expect(request.method).toBe('PUT');
		expect(request.rawPath).toBe('contacts/fields/custom/loyalty%20tier%2Flevel/loyalty%20level');
		expect(request.accept).toBe('application/vnd.service.api+xml; charset=utf-8');
		expect(double().contactFields.customFields.has('loyalty level')).toBe(true);
	});

	it('fails with the service’s own message on 404, naming the item', async () => {
		const result = await runNode({ credentials: credentials(), parameters: rename('no such field', 'x') });

		expect(result.error?.message).toBe("Custom field 'no such field' does not exist.");
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.description).toBe('No custom contact field named "no such field" was found. Check the spelling and case of Old Name. Attempts made: 1.');
		expect(result.error?.context?.itemIndex).toBe(0);
	});

	it('keeps going per item with continue-on-fail, one output per input', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...rename('={{ $json.from }}', '={{ $json.to }}') },
			items: [{ from: 'shoe size', to: 'shoe size eu' }, { from: 'missing', to: 'y' }, { from: ' ', to: 'z' }],
			onError: 'continueRegularOutput',
		});

		expect(result.main).toEqual([
			{ renamed: true, oldName: 'shoe size', newName: 'shoe size eu' },
			{ error: "Custom field 'missing' does not exist.", message: expect.stringContaining('Check the spelling and case of Old Name. Attempts made: 1.') },
			{ error: 'Old Name is empty', message: 'Enter the old name of the custom contact field.' },
		]);
		expect(result.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(double().requestsTo('contacts/')).toHaveLength(2);
	});

	it('routes failures to the error output when it is enabled', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...rename('={{ $json.from }}', 'renamed') },
			items: [{ from: 'shoe size' }, { from: 'missing' }],
			onError: 'continueErrorOutput',
		});

		expect(result.main).toEqual([{ renamed: true, oldName: 'shoe size', newName: 'renamed' }]);
		expect(result.errorOutput).toEqual([{ from: 'missing', error: "Custom field 'missing' does not exist.", message: expect.stringContaining('Attempts made: 1.') }]);
	});

	it('never puts the API key into execution data, even when the key is refused', async () => {
		const wrongKey = 'wrong-key-that-must-not-leak';
		const result = await runNode({
			credentials: { ...credentials(), apiKey: wrongKey },
			parameters: rename('shoe size', 'x'),
		});

		expect(result.error?.httpCode).toBe('401');
		expect(result.error?.description).toBe('The API key was not accepted. Check the API key in the Mailing Platform API credential. Attempts made: 1.');
		const everything = JSON.stringify(result.run);
		expect(everything).not.toContain(wrongKey);
		expect(everything).not.toContain(Buffer.from(wrongKey).toString('base64'));
	});

	it('refuses a plain http:// base URL that is not this machine, before sending', async () => {
		const result = await runNode({
			credentials: { ...credentials(), baseUrl: 'http://api.example.com/1.0' },
			parameters: rename('shoe size', 'x'),
		});

		expect(result.error?.message).toContain('use an https:// address');
		expect(double().requests).toHaveLength(0);
	});
});
