import type { IDataObject } from 'n8n-workflow';

import { toRawBlock, toSimpleBlock } from '../../nodes/MailingPlatform/actions/report/blockRecords';
import { serviceTimeToIso } from '../../nodes/MailingPlatform/helpers/dateTime';
import { readXml } from '../../nodes/MailingPlatform/transport/xml';

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

describe('raw block items', () => {
	// What a user sees in the item's JSON: every element as the service sent it, in the order sent, lists
	// always as arrays, and the ISO companions after the values they read. Compared as JSON, so order counts.
	const rawJson = (xml: string, timeZone = 'Europe/Berlin') => {
		const parsed = readXml(`<blocks>${xml}</blocks>`);
		return JSON.stringify(toRawBlock((parsed?.blocks as IDataObject[])[0], timeZone));
	};
	const CHANGE_XML = '<timestamp>2024-05-01 10:00:00</timestamp><old_status>allowed</old_status><new_status>blocked</new_status><reason>blacklist</reason>';
	const CHANGE = { timestamp: '2024-05-01 10:00:00', old_status: 'allowed', new_status: 'blocked', reason: 'blacklist' };
	const BERLIN_TIME = { timestampIso: '2024-05-01T10:00:00.000+02:00' };
	const contactXml = (id: number, email: string, created: string, updated: string, externalId: string, fields: string) =>
		`<contact><id>${id}</id><email>${email}</email><permissionStatus>available</permissionStatus><permissionType>doi+</permissionType>` +
		`<created>${created}</created><updated>${updated}</updated>${externalId}${fields}</contact>`;
	/** A contact of the spec's elements from the first of January, without fields: as sent, then its ISO times. */
	const NEW_YEAR_CONTACT = {
		id: 1,
		email: 'a@b.c',
		permissionStatus: 'available',
		permissionType: 'doi+',
		created: '2024-01-01 00:00:00.0',
		updated: '2024-01-01 00:00:00.0',
	};
	const NEW_YEAR_TIMES = { createdIso: '2024-01-01T00:00:00.000+01:00', updatedIso: '2024-01-01T00:00:00.000+01:00' };
	const newYearXml = (externalId: string, extra = '') =>
		contactXml(1, 'a@b.c', '2024-01-01 00:00:00.0', '2024-01-01 00:00:00.0', externalId, `<standard_fields/><custom_fields/>${extra}`);

	it('gives a block with the spec\'s elements as sent, with its times read in the platform zone', () => {
		const fields =
			'<standard_fields><field><name>FIRSTNAME</name><value>Ada</value></field><field><name>LASTNAME</name><value nil="true"/></field></standard_fields><custom_fields/>';
		const xml = `<block>${contactXml(7, 'ada@example.com', '2024-01-15 09:00:00.0', '2024-05-01 10:00:00.0', '<external_id nil="true"/>', fields)}${CHANGE_XML}</block>`;
		const contact = {
			id: 7,
			email: 'ada@example.com',
			permissionStatus: 'available',
			permissionType: 'doi+',
			created: '2024-01-15 09:00:00.0',
			updated: '2024-05-01 10:00:00.0',
			external_id: null,
			standard_fields: [
				{ name: 'FIRSTNAME', value: 'Ada' },
				{ name: 'LASTNAME', value: null },
			],
			custom_fields: [],
		};
		expect(rawJson(xml)).toBe(
			JSON.stringify({
				contact: { ...contact, createdIso: '2024-01-15T09:00:00.000+01:00', updatedIso: '2024-05-01T10:00:00.000+02:00' },
				...CHANGE,
				...BERLIN_TIME,
			}),
		);
		expect(rawJson(xml, 'America/New_York')).toBe(
			JSON.stringify({
				contact: { ...contact, createdIso: '2024-01-15T09:00:00.000-05:00', updatedIso: '2024-05-01T10:00:00.000-04:00' },
				...CHANGE,
				timestampIso: '2024-05-01T10:00:00.000-04:00',
			}),
		);
	});

	it.each([
		['no contact (anonymous)', `<block><contact nil="true"/>${CHANGE_XML}</block>`, { contact: null, ...CHANGE, ...BERLIN_TIME }],
		['an empty contact, passed on as the empty text it is', `<block><contact/>${CHANGE_XML}</block>`, { contact: '', ...CHANGE, ...BERLIN_TIME }],
		[
			'an unknown element',
			'<block><contact><id>1</id><email>a@b.c</email></contact><timestamp>2024-05-01 10:00:00</timestamp><extra>x</extra><reason>blacklist</reason></block>',
			{
				contact: { id: 1, email: 'a@b.c', createdIso: null, updatedIso: null, standard_fields: [], custom_fields: [] },
				timestamp: '2024-05-01 10:00:00',
				extra: 'x',
				reason: 'blacklist',
				...BERLIN_TIME,
			},
		],
		[
			'missing elements',
			'<block><timestamp>2024-05-01 10:00:00</timestamp><reason>blacklist</reason></block>',
			{ timestamp: '2024-05-01 10:00:00', reason: 'blacklist', ...BERLIN_TIME },
		],
		[
			'another order',
			`<block>${CHANGE_XML}${newYearXml('<external_id nil="true"/>')}</block>`,
			{ ...CHANGE, contact: { ...NEW_YEAR_CONTACT, external_id: null, standard_fields: [], custom_fields: [], ...NEW_YEAR_TIMES }, ...BERLIN_TIME },
		],
		[
			'a contact with an unknown element',
			`<block>${newYearXml('<external_id>E</external_id>', '<score>7</score>')}${CHANGE_XML}</block>`,
			{ contact: { ...NEW_YEAR_CONTACT, external_id: 'E', standard_fields: [], custom_fields: [], score: '7', ...NEW_YEAR_TIMES }, ...CHANGE, ...BERLIN_TIME },
		],
	])('keeps every element of a block with %s, in the order sent', (_, xml, expected) => {
		expect(rawJson(xml)).toBe(JSON.stringify(expected));
	});
});
