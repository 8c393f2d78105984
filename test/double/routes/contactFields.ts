import type { DoubleRequest, DoubleResponse } from '../http';
import { xmlError } from '../http';

/** PUT contacts/fields/custom/:oldname/:newname (204; errors are not shown in the spec). */
export class ContactFieldsArea {
	readonly customFields = new Set<string>(['loyalty tier/level', 'shoe size', 'favourite colour']);

	handle(request: DoubleRequest): DoubleResponse | undefined {
		const [contacts, fields, custom, oldName, newName, ...rest] = request.segments;
		if (contacts !== 'contacts' || fields !== 'fields' || custom !== 'custom') return undefined;
		if (oldName === undefined || newName === undefined || rest.length > 0) return xmlError(404, 'Not found.');
		if (request.method !== 'PUT') return xmlError(405, 'Method not allowed.');
		if (!this.customFields.has(oldName)) return xmlError(404, `Custom field '${oldName}' does not exist.`);
		if (newName.trim() === '') return xmlError(400, 'The new field name must not be empty.');
		if (this.customFields.has(newName)) return xmlError(409, `Custom field '${newName}' already exists.`);
		this.customFields.delete(oldName);
		this.customFields.add(newName);
		return { status: 204 };
	}
}
