import type { IDataObject } from 'n8n-workflow';

import { serviceTimeToIso } from '../../helpers/dateTime';
import { isPlainObject } from '../../helpers/values';

function asList(value: unknown): IDataObject[] {
	return Array.isArray(value) ? value.filter(isPlainObject) : [];
}

/** The elements of a block and of its contact, in the spec's order. */
const BLOCK_KEYS = ['contact', 'timestamp', 'old_status', 'new_status', 'reason'];
const CONTACT_KEYS = ['id', 'email', 'permissionStatus', 'permissionType', 'created', 'updated', 'external_id', 'standard_fields', 'custom_fields'];

function hasKeysInOrder(object: IDataObject, keys: readonly string[]): boolean {
	let index = 0;
	for (const key of Object.keys(object)) if (key !== keys[index++]) return false;
	return index === keys.length;
}

/**
 * One parsed `block` as the node emits it: everything the service sent, lists as arrays, plus
 * `timestampIso`, `contact.createdIso` and `contact.updatedIso` beside the values as sent,
 * read as wall-clock time of `timeZone`, the platform account's zone.
 *
 * A block with exactly the spec's elements (nearly all) is built as object literals with a
 * fixed key order, so that every item shares one hidden class, which takes much less memory
 * (docs/benchmarks.md). Its JSON is the same as for any other block, whose
 * elements, unknown ones included, are copied in the order they came.
 */
export function toRawBlock(block: IDataObject, timeZone: string): IDataObject {
	const contact = block.contact;
	const specContact = contact === null || (isPlainObject(contact) && hasKeysInOrder(contact, CONTACT_KEYS));
	if (!specContact || !hasKeysInOrder(block, BLOCK_KEYS)) return copyBlock(block, timeZone);
	return {
		contact: isPlainObject(contact)
			? {
					id: contact.id,
					email: contact.email,
					permissionStatus: contact.permissionStatus,
					permissionType: contact.permissionType,
					created: contact.created,
					updated: contact.updated,
					external_id: contact.external_id,
					standard_fields: asList(contact.standard_fields),
					custom_fields: asList(contact.custom_fields),
					createdIso: serviceTimeToIso(contact.created, timeZone),
					updatedIso: serviceTimeToIso(contact.updated, timeZone),
				}
			: null,
		timestamp: block.timestamp,
		old_status: block.old_status,
		new_status: block.new_status,
		reason: block.reason,
		timestampIso: serviceTimeToIso(block.timestamp, timeZone),
	};
}

function copyBlock(block: IDataObject, timeZone: string): IDataObject {
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
