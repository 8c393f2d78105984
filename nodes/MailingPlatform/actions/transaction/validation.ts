/** Checks of one transaction before anything is sent: pure, the messages name the field. */
import { thousands } from '../../helpers/numbers';
import { isPlainObject } from '../../helpers/objects';

export const MAX_ATTACHMENT_BYTES = 1_000_000;

export interface Attachment {
	filename: string;
	mimetype: string;
	data: string;
}

/** How a field is called where the user set it: a parameter name or a JSON path. */
export interface FieldLabels {
	type: string;
	contact: string;
	permission: string;
	content: string;
	attachments: string;
}

export const JSON_LABELS: FieldLabels = {
	type: '"type" or "typeName"',
	contact: '"contact" (or "import.contact")',
	permission: '"import.contact.permission"',
	content: '"content"',
	attachments: '"attachments"',
};

const EXECUTABLE_EXTENSIONS = new Set([
	'exe', 'com', 'bat', 'cmd', 'msi', 'msp', 'scr', 'pif', 'cpl', 'dll', 'sys', 'vbs', 'vbe', 'js', 'jse',
	'wsf', 'wsh', 'hta', 'ps1', 'psm1', 'sh', 'bash', 'jar', 'app', 'apk', 'lnk', 'reg', 'run', 'bin', 'elf',
]);

const EXECUTABLE_MIME_TYPES = new Set([
	'application/x-msdownload',
	'application/x-msdos-program',
	'application/x-dosexec',
	'application/x-executable',
	'application/x-elf',
	'application/x-sharedlib',
	'application/x-mach-binary',
	'application/vnd.microsoft.portable-executable',
	'application/x-ms-installer',
	'application/x-msi',
	'application/java-archive',
	'application/x-java-archive',
	'application/x-sh',
	'application/x-shellscript',
	'application/x-bat',
	'application/x-vbscript',
	'application/hta',
	'application/vnd.android.package-archive',
]);

/** Whether the service would refuse this file as executable, judged by name and by MIME type. */
export function isExecutable(filename: string, mimetype: string): boolean {
	const dot = filename.lastIndexOf('.');
	const extension = dot === -1 ? '' : filename.slice(dot + 1).toLowerCase();
	const mime = mimetype.split(';')[0].trim().toLowerCase();
	return EXECUTABLE_EXTENSIONS.has(extension) || EXECUTABLE_MIME_TYPES.has(mime);
}

/** Bytes after Base64 decoding, computed from the text alone. */
export function base64DecodedBytes(data: string): number {
	const text = data.replace(/\s+/g, '');
	const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
	return Math.floor((text.length * 3) / 4) - padding;
}

function hasIdentification(contact: Record<string, unknown>): boolean {
	const { id, email, external_id: externalId } = contact;
	return (
		(typeof id === 'number' && Number.isInteger(id) && id > 0) ||
		(typeof email === 'string' && email.trim() !== '') ||
		(typeof externalId === 'string' && externalId.trim() !== '')
	);
}

/** Problems with attachments in the API's shape: the spec's size limit and no executables. */
export function attachmentProblem(attachments: unknown, label: string): string | undefined {
	if (attachments === undefined) return undefined;
	if (!Array.isArray(attachments)) return `${label} must be a list of {filename, mimetype, data}`;
	let total = 0;
	for (const [index, attachment] of attachments.entries()) {
		if (
			!isPlainObject(attachment) ||
			typeof attachment.filename !== 'string' ||
			typeof attachment.mimetype !== 'string' ||
			typeof attachment.data !== 'string'
		) {
			return `${label} entry ${index + 1} needs "filename", "mimetype" and Base64 "data" as text`;
		}
		if (isExecutable(attachment.filename, attachment.mimetype)) {
			return `${label}: "${attachment.filename}" (${attachment.mimetype}) is an executable file, which the service does not allow`;
		}
		total += base64DecodedBytes(attachment.data);
	}
	if (total > MAX_ATTACHMENT_BYTES) {
		return `${label} add up to ${thousands(total)} bytes, more than the ${thousands(MAX_ATTACHMENT_BYTES)} bytes the service allows per transaction`;
	}
	return undefined;
}

/**
 * The first reason the service would certainly refuse this transaction, or undefined. The same
 * checks apply to transactions built from fields and to those given as JSON.
 */
export function transactionProblem(transaction: unknown, labels: FieldLabels): string | undefined {
	if (!isPlainObject(transaction)) return 'The transaction must be a JSON object';
	const { type, typeName } = transaction;
	const typeGiven = type !== undefined && type !== null;
	if (typeGiven && !(typeof type === 'number' && Number.isInteger(type) && type > 0)) {
		return `${labels.type}: the transaction type ID must be a positive whole number`;
	}
	if (!typeGiven && !(typeof typeName === 'string' && typeName.trim() !== '')) {
		return `${labels.type} is missing: set the transaction type by ID or by name`;
	}

	if (transaction.import !== undefined) {
		const imported = transaction.import;
		const contact = isPlainObject(imported) ? imported.contact : undefined;
		if (!isPlainObject(contact) || !hasIdentification(contact)) {
			return `${labels.contact} is missing: give an e-mail address, external ID or contact ID`;
		}
		const permission = contact.permission;
		if (permission === 1) {
			return `${labels.permission} is 1 (none): no mail may be sent to a contact with it. Use 2 to 6`;
		}
		if (!(typeof permission === 'number' && Number.isInteger(permission) && permission >= 2 && permission <= 6)) {
			return `${labels.permission} must be a whole number from 2 to 6`;
		}
	} else if (!isPlainObject(transaction.contact) || !hasIdentification(transaction.contact)) {
		return `${labels.contact} is missing: give an e-mail address, external ID or contact ID`;
	}

	// The spec's sample puts content inside import, next to import.contact.
	const content =
		transaction.content ?? (isPlainObject(transaction.import) ? transaction.import.content : undefined);
	if (!isPlainObject(content)) return `${labels.content} must be a JSON object`;

	return attachmentProblem(transaction.attachments, labels.attachments);
}
