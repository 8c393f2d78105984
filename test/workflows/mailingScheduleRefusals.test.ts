import { DateTime } from 'luxon';

import { MAILINGS } from '../double/routes/mailings';
import { useServiceDouble } from '../harness/double';
import { future, schedule } from '../harness/schedule';
import { runNode } from '../harness/workflow';

describe('mailing › schedule in a workflow: refusals and answers', () => {
	const { double, credentials } = useServiceDouble();

	it('refuses a past date, an interval with the hour option and an end before the start, per item', async () => {
		const past = DateTime.now().setZone('Europe/Berlin').minus({ minutes: 5 });
		const start = future(1, '12:00');
		const result = await runNode({
			credentials: credentials(),
			parameters: schedule({
				scheduledAt: '={{ $json.at }}',
				dispatchOption: '={{ $json.option }}',
				dispatchEnd: '={{ $json.end }}',
				dispatchEndInHours: 12,
				dispatchEndExactDatetime: '={{ $json.until }}',
				dispatchUniformInterval: '={{ $json.interval }}',
			}),
			items: [
				{ at: past.toFormat("yyyy-MM-dd'T'HH:mm:ss"), option: 'none' },
				{ at: start.picker, option: 'hour', end: 'inHours', interval: '30m' },
				{ at: start.picker, option: 'uniform', end: 'exactDatetime', until: `${start.date} 11:00` },
				{ at: start.picker, option: 'uniform', end: 'inDays' },
				{ at: 'next tuesday', option: 'none' },
			],
			onError: 'continueRegularOutput',
		});

		expect(result.main.map((item) => item.error)).toEqual([
			`Scheduled At is in the past: ${past.toFormat('yyyy-MM-dd HH:mm')} (Europe/Berlin)`,
			'Uniform Interval is set, but it is only used with the uniform dispatch option (here: hour)',
			`Dispatch End At (${start.date} 11:00) is not after Scheduled At (${start.date} 12:00)`,
			'Dispatch End "inDays" cannot be used with dispatch option uniform',
			'Scheduled At is not a date-time: "next tuesday"',
		]);
		expect(double().requests).toHaveLength(0);
	});

	it('explains a sealed mailing (405), a mailing that is not REGULAR (400) and an unknown one (404)', async () => {
		const result = await runNode({
			credentials: credentials(),
			parameters: schedule({ mailingId: '={{ $json.id }}', scheduledAt: future(1, '12:00').picker }),
			items: [{ id: MAILINGS.sealed }, { id: MAILINGS.trigger }, { id: 4242 }],
			onError: 'continueRegularOutput',
		});
		expect(result.main).toEqual([
			{ error: `Mailing with ID ${MAILINGS.sealed} cannot be changed as it is sealed.`, message: expect.stringContaining('Attempts made: 1.') },
			{ error: `Mailing with ID ${MAILINGS.trigger} is not of type REGULAR.`, message: expect.stringContaining('Attempts made: 1.') },
			{ error: 'Mailing with id 4242 not found.', message: expect.stringContaining('Attempts made: 1.') },
		]);

		const sealed = await runNode({
			credentials: credentials(),
			parameters: schedule({ mailingId: MAILINGS.sealed, scheduledAt: future(1, '12:00').picker }),
		});
		expect(sealed.error?.httpCode).toBe('405');
		expect(sealed.error?.description).toContain('sealed (already sent out)');
		const trigger = await runNode({
			credentials: credentials(),
			parameters: schedule({ mailingId: MAILINGS.trigger, scheduledAt: future(1, '12:00').picker }),
		});
		expect(trigger.error?.httpCode).toBe('400');
		expect(trigger.error?.description).toContain('in the past or not a date');
		expect(trigger.error?.description).toContain('REGULAR');
	});

	it('accepts a small XML answer as well as an empty one', async () => {
		double().mailings.scheduleAnswersWithXml = true;
		const start = future(1, '12:00');

		const result = await runNode({ credentials: credentials(), parameters: schedule({ scheduledAt: start.picker }) });

		expect(result.error).toBeUndefined();
		expect(result.main[0].scheduled).toEqual({ date: start.date, hours: 12, minutes: 0, timeZone: 'Europe/Berlin' });
	});
});
