import type { IDataObject } from 'n8n-workflow';

import { serviceTimeToIso } from './dateTime';
import { isPlainObject } from './objects';

function asList(value: unknown): IDataObject[] {
	return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/**
 * One parsed `block` as the node emits it: everything the service sent, lists as arrays, plus
 * `timestampIso`, `contact.createdIso` and `contact.updatedIso` beside the values as sent,
 * read as wall-clock time of `timeZone`, the platform account's zone.
 */
export function toRawBlock(block: IDataObject, timeZone: string): IDataObject {
	const raw: IDataObject = { ...block, timestampIso: serviceTimeToIso(block.timestamp, timeZone) };
	const contact = block.contact;
	if (isPlainObject(contact)) {
		raw.contact = {
			...contact,
			createdIso: serviceTimeToIso(contact.created, timeZone),
			updatedIso: serviceTimeToIso(contact.updated, timeZone),
			standard_fields: asList(contact.standard_fields),
			custom_fields: asList(contact.custom_fields),
		};
	}
	return raw;
}

function fieldsByName(fields: unknown): IDataObject {
	const byName: IDataObject = {};
	for (const field of asList(fields)) {
		if (typeof field.name === 'string') byName[field.name] = field.value ?? null;
	}
	return byName;
}

/** A raw block (from `toRawBlock`) as one flat item, times in ISO 8601. */
export function toSimpleBlock(raw: IDataObject): IDataObject {
	const contact = isPlainObject(raw.contact) ? raw.contact : undefined;
	return {
		contactId: contact?.id ?? null,
		email: contact?.email ?? null,
		externalId: contact?.external_id ?? null,
		timestamp: raw.timestampIso ?? raw.timestamp ?? null,
		oldStatus: raw.old_status ?? null,
		newStatus: raw.new_status ?? null,
		reason: raw.reason ?? null,
		standardFields: fieldsByName(contact?.standard_fields),
		customFields: fieldsByName(contact?.custom_fields),
	};
}
