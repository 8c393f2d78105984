import { MAILINGS } from '../double/routes/mailings';
import { useServiceDouble } from '../harness/double';
import { runNode } from '../harness/workflow';

describe('mailing › checks and test send-out result in a workflow', () => {
	const { double, credentials } = useServiceDouble();
	const mailing = (operation: string, mailingId: number | string) => ({ resource: 'mailing', operation, mailingId });

	it('starts a message-size check, then explains that it is still running', async () => {
		const first = await runNode({ credentials: credentials(), parameters: mailing('startMessageSizeCheck', MAILINGS.regular) });

		expect(first.error).toBeUndefined();
		expect(first.main).toEqual([{ mailingId: MAILINGS.regular, check: 'messageSize', started: true }]);
		const [request] = double().requestsTo('mailings/');
		expect(request.method).toBe('POST');
		expect(request.rawPath).toBe(`mailings/${MAILINGS.regular}/checks/messagesize`);
		expect(request.query).toEqual([]);
		expect(request.bodyBytes).toBe(0);

		const again = await runNode({ credentials: credentials(), parameters: mailing('startMessageSizeCheck', MAILINGS.regular) });

		expect(again.error?.message).toBe('check in progress');
		expect(again.error?.httpCode).toBe('400');
		expect(again.error?.description).toContain('already running');
		expect(again.error?.description).toContain('about a minute');
	});

	it('starts the bounce check independently of the message-size check, and again once it finished', async () => {
		const parameters = mailing('startBounceCheck', MAILINGS.regular);
		await runNode({ credentials: credentials(), parameters: mailing('startMessageSizeCheck', MAILINGS.regular) });

		const bounce = await runNode({ credentials: credentials(), parameters });
		expect(bounce.main).toEqual([{ mailingId: MAILINGS.regular, check: 'bounce', started: true }]);
		expect(double().requestsTo('mailings/').at(-1)?.rawPath).toBe(`mailings/${MAILINGS.regular}/checks/bounce`);

		double().mailings.finishChecks();
		const afterFinish = await runNode({ credentials: credentials(), parameters });
		expect(afterFinish.error).toBeUndefined();
		expect(afterFinish.main).toEqual([{ mailingId: MAILINGS.regular, check: 'bounce', started: true }]);
	});

	it('gives sealed, not enabled and unknown mailings their own messages per item with continue-on-fail', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: mailing('startBounceCheck', '={{ $json.id }}'),
			items: [{ id: MAILINGS.sealed }, { id: MAILINGS.checksNotEnabled }, { id: 4242 }, { id: '1001' }],
			onError: 'continueRegularOutput',
		});

		expect(result.main).toEqual([
			{ error: `Mailing with ID ${MAILINGS.sealed} cannot be changed as it is sealed.`, message: expect.stringContaining('sealed (already sent out)') },
			{ error: 'The bounce check is not enabled.', message: expect.stringContaining('not enabled for this account') },
			{ error: 'Mailing with id 4242 not found.', message: expect.stringContaining('No mailing with ID 4242 was found') },
			{ mailingId: 1001, check: 'bounce', started: true },
		]);
		expect(result.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
	});

	it('explains each check failure in the error description', async () => {
		const failure = async (mailingId: number) =>
			(await runNode({ credentials: credentials(), parameters: mailing('startMessageSizeCheck', mailingId) })).error;

		const sealed = await failure(MAILINGS.sealed);
		expect(sealed?.httpCode).toBe('409');
		expect(sealed?.description).toContain('sealed (already sent out)');
		const notEnabled = await failure(MAILINGS.checksNotEnabled);
		expect(notEnabled?.httpCode).toBe('412');
		expect(notEnabled?.description).toContain('not enabled for this account');
		const unknown = await failure(4242);
		expect(unknown?.httpCode).toBe('404');
		expect(unknown?.description).toContain('No mailing with ID 4242');
	});

	it('refuses mailing IDs that are not positive whole numbers before sending', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: mailing('startMessageSizeCheck', '={{ $json.id }}'),
			items: [{ id: '12a' }, { id: 0 }, { id: -1 }, { id: 1.5 }, { id: ' 1001 ' }],
			onError: 'continueErrorOutput',
		});

		expect(result.errorOutput.map((item) => item.error)).toEqual([
			'Mailing ID must be a whole number of at least 1, not "12a"',
			'Mailing ID must be a whole number of at least 1, not 0',
			'Mailing ID must be a whole number of at least 1, not -1',
			'Mailing ID must be a whole number of at least 1, not 1.5',
		]);
		expect(result.main).toEqual([{ mailingId: 1001, check: 'messageSize', started: true }]);
		expect(double().requestsTo('mailings/')).toHaveLength(1);
	});

	it('says Mailing ID is empty when none was entered, before sending', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: { resource: 'mailing', operation: 'startBounceCheck' },
		});

		expect(result.error?.message).toBe('Mailing ID is empty');
		expect(double().requestsTo('mailings/')).toHaveLength(0);
	});

	it('reads the test send-out result typed, passing unknown elements through', async () => {
		const result = await runNode({ credentials: credentials(), parameters: mailing('getTestSendOutResult', MAILINGS.regular) });

		expect(result.error).toBeUndefined();
		expect(result.main).toEqual([
			{
				mailingId: MAILINGS.regular,
				timestamp: '2026-11-20T09:15:42.123+01:00',
				state: 'success',
				recipients: 'qa@example.com',
			},
		]);
		const [request] = double().requestsTo('mailings/');
		expect(request.method).toBe('GET');
		expect(request.rawPath).toBe(`mailings/${MAILINGS.regular}/checks/testsendout`);
	});

	it('keeps a state the spec does not list', async () => {
		double().mailings.mailings.get(MAILINGS.withoutResult)!.testSendOut = {
			mailingid: MAILINGS.withoutResult,
			timestamp: '2026-11-21T10:00:00.000Z',
			state: 'partially_delivered',
		};

		const result = await runNode({ credentials: credentials(), parameters: mailing('getTestSendOutResult', MAILINGS.withoutResult) });

		expect(result.main).toEqual([
			{ mailingId: MAILINGS.withoutResult, timestamp: '2026-11-21T10:00:00.000Z', state: 'partially_delivered' },
		]);
	});

	it('explains a missing result, a sealed mailing and an unknown one per item', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: mailing('getTestSendOutResult', '={{ $json.id }}'),
			items: [{ id: MAILINGS.withoutResult }, { id: MAILINGS.sealed }, { id: 4242 }],
			onError: 'continueErrorOutput',
		});

		expect(result.errorOutput).toEqual([
			{ id: MAILINGS.withoutResult, error: `Results not available for mailing with id ${MAILINGS.withoutResult}.`, message: expect.stringContaining('Attempts made: 1.') },
			{ id: MAILINGS.sealed, error: `Mailing with ID ${MAILINGS.sealed} is sealed.`, message: expect.stringContaining('Attempts made: 1.') },
			{ id: 4242, error: 'Mailing with id 4242 not found.', message: expect.stringContaining('Attempts made: 1.') },
		]);

		const stopped = await runNode({ credentials: credentials(), parameters: mailing('getTestSendOutResult', MAILINGS.withoutResult) });
		expect(stopped.error?.httpCode).toBe('404');
		expect(stopped.error?.description).toContain('no test-send-out result yet');
		expect(stopped.error?.description).toContain('Check Mailing ID');
	});
});
