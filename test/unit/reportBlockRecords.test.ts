import type { IDataObject } from 'n8n-workflow';

import { toRawBlock, toSimpleBlock } from '../../nodes/MailingPlatform/helpers/blockRecords';
import { serviceTimeToIso } from '../../nodes/MailingPlatform/helpers/dateTime';
import { isPlainObject } from '../../nodes/MailingPlatform/helpers/objects';
import { parseXml } from '../../nodes/MailingPlatform/transport/xml';
import { ReportsArea } from '../double/routes/reports';

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
	// The items as the node built them before they got a fixed shape: their JSON must not change.
	const spreadBlock = (block: IDataObject, timeZone: string): IDataObject => {
		const raw: IDataObject = { ...block, timestampIso: serviceTimeToIso(block.timestamp, timeZone) };
		const contact = block.contact;
		if (isPlainObject(contact)) {
			const list = (value: unknown) => (Array.isArray(value) ? value.filter(isPlainObject) : []);
			raw.contact = {
				...contact,
				createdIso: serviceTimeToIso(contact.created, timeZone),
				updatedIso: serviceTimeToIso(contact.updated, timeZone),
				standard_fields: list(contact.standard_fields),
				custom_fields: list(contact.custom_fields),
			};
		}
		return raw;
	};
	const parsedBlocks = (xml: string) => {
		const parsed = parseXml(xml);
		if (!parsed.ok) throw new Error(parsed.problem);
		return parsed.data.blocks as IDataObject[];
	};

	it('gives the same JSON as before for blocks as the double sends them, with fields, nil values and anonymous blocks', () => {
		const reports = new ReportsArea();
		reports.generateBlocks(40, { start: '2024-10-27T00:30:00Z', stepMs: 300_000 });
		reports.addAnonymousBlock({ at: '2024-10-27T01:00:00Z' });
		const page = reports.handle({
			method: 'GET',
			segments: ['reports', 'blocks'],
			query: new URLSearchParams([['page_size', '1000'], ['exclude_anonymous_blocks', 'false'], ['standard_field', 'FIRSTNAME'], ['standard_field', 'LASTNAME'], ['custom_field', 'shoe size']]),
			headers: {},
			body: Buffer.alloc(0),
		});
		const blocks = parsedBlocks(page?.body ?? '');
		expect(blocks).toHaveLength(41);
		expect(blocks.some((block) => block.contact === null)).toBe(true);
		for (const zone of ['Europe/Berlin', 'America/New_York']) {
			for (const block of blocks) expect(JSON.stringify(toRawBlock(block, zone))).toBe(JSON.stringify(spreadBlock(block, zone)));
		}
	});

	it.each([
		['an unknown element', '<block><contact><id>1</id><email>a@b.c</email></contact><timestamp>2024-05-01 10:00:00</timestamp><extra>x</extra><reason>blacklist</reason></block>'],
		['missing elements', '<block><timestamp>2024-05-01 10:00:00</timestamp><reason>blacklist</reason></block>'],
		[
			'another order',
			'<block><timestamp>2024-05-01 10:00:00</timestamp><old_status>allowed</old_status><new_status>blocked</new_status><reason>blacklist</reason><contact><id>1</id><email>a@b.c</email><permissionStatus>available</permissionStatus><permissionType>doi+</permissionType><created>2024-01-01 00:00:00.0</created><updated>2024-01-01 00:00:00.0</updated><external_id nil="true"/><standard_fields/><custom_fields/></contact></block>',
		],
		['an empty contact', '<block><contact/><timestamp>2024-05-01 10:00:00</timestamp><old_status>allowed</old_status><new_status>blocked</new_status><reason>blacklist</reason></block>'],
		[
			'a contact with an unknown element',
			'<block><contact><id>1</id><email>a@b.c</email><permissionStatus>available</permissionStatus><permissionType>doi+</permissionType><created>2024-01-01 00:00:00.0</created><updated>2024-01-01 00:00:00.0</updated><external_id>E</external_id><standard_fields/><custom_fields/><score>7</score></contact><timestamp>2024-05-01 10:00:00</timestamp><old_status>allowed</old_status><new_status>blocked</new_status><reason>blacklist</reason></block>',
		],
	])('keeps every element of a block with %s, in the order sent', (_, xml) => {
		const [block] = parsedBlocks(`<blocks>${xml}</blocks>`);
		expect(JSON.stringify(toRawBlock(block, 'Europe/Berlin'))).toBe(JSON.stringify(spreadBlock(block, 'Europe/Berlin')));
	});
});
