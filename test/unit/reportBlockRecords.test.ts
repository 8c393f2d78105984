import { toSimpleBlock } from '../../nodes/MailingPlatform/helpers/blockRecords';
import { serviceTimeToIso } from '../../nodes/MailingPlatform/helpers/dateTime';

describe('service times to ISO 8601', () => {
	it.each([
		['2024-05-01 10:00:00', 'Europe/Berlin', '2024-05-01T10:00:00.000+02:00'],
		['2024-01-15 10:00:00', 'Europe/Berlin', '2024-01-15T10:00:00.000+01:00'],
		['2024-01-15 10:00:00.5', 'America/New_York', '2024-01-15T10:00:00.500-05:00'],
		['2024-01-15 10:00:00', 'UTC', '2024-01-15T10:00:00.000+00:00'],
		// The hour that does not exist when clocks go forward: moved on, as luxon does.
		['2024-03-31 02:30:00', 'Europe/Berlin', '2024-03-31T03:30:00.000+02:00'],
		// The hour that happens twice when clocks go back: the second one (standard time), as luxon reads it.
		['2024-10-27 02:30:00', 'Europe/Berlin', '2024-10-27T02:30:00.000+01:00'],
		['2024-10-27 03:30:00', 'Europe/Berlin', '2024-10-27T03:30:00.000+01:00'],
	])('reads %s in %s', (value, zone, iso) => {
		expect(serviceTimeToIso(value, zone)).toBe(iso);
		expect(Date.parse(serviceTimeToIso(value, zone) as string)).toBe(Date.parse(iso));
	});

	it('gives null for values not in the service format', () => {
		expect(serviceTimeToIso('yesterday', 'UTC')).toBeNull();
		expect(serviceTimeToIso(null, 'UTC')).toBeNull();
	});

	it('simplifies an anonymous block without a contact', () => {
		expect(toSimpleBlock({ contact: null, timestamp: '2024-05-01 10:00:00', timestampIso: null, reason: 'blacklist' })).toMatchObject({
			contactId: null,
			email: null,
			timestamp: '2024-05-01 10:00:00',
			standardFields: {},
		});
	});
});
