/** Attachments in the API's shape: made from an item's binary properties, and checked against the service's rules. */
import type { IExecuteFunctions } from 'n8n-workflow';

import { InputProblem, isPlainObject } from '../../helpers/values';
import { thousands } from '../../helpers/numbers';

const MAX_ATTACHMENT_BYTES = 1_000_000;

interface Attachment {
	filename: string;
	mimetype: string;
	data: string;
}

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

/** Refuses attachments the service would refuse: not {filename, mimetype, data}, executable, or over the size limit. */
export function checkAttachments(attachments: unknown, label: string): void {
	const refuse = (problem: string, hint: string) => new InputProblem(`${label}${problem}`, hint);
	if (!Array.isArray(attachments)) throw refuse(' must be a list of {filename, mimetype, data}', 'Give the attachments as a list.');
	let total = 0;
	for (const [index, attachment] of attachments.entries()) {
		if (!isPlainObject(attachment) || typeof attachment.filename !== 'string' || typeof attachment.mimetype !== 'string' || typeof attachment.data !== 'string') {
			throw refuse(` entry ${index + 1} needs "filename", "mimetype" and Base64 "data" as text`, 'Give each attachment those three texts.');
		}
		if (isExecutable(attachment.filename, attachment.mimetype)) {
			throw refuse(`: "${attachment.filename}" (${attachment.mimetype}) is an executable file, which the service does not allow`, 'Leave the file out, or send a document format instead.');
		}
		total += base64DecodedBytes(attachment.data);
	}
	if (total > MAX_ATTACHMENT_BYTES) {
		throw refuse(`: the attachments add up to ${thousands(total)} bytes, more than ${thousands(MAX_ATTACHMENT_BYTES)} bytes, the service's limit per transaction`, 'Attach fewer or smaller files.');
	}
}

/** The item's binary properties as attachments; read through n8n, since binary data may sit on disk or in S3. */
export async function binaryAttachments(context: IExecuteFunctions, itemIndex: number, properties: string[], label: string): Promise<Attachment[]> {
	const binaries = context.getInputData()[itemIndex].binary ?? {};
	const attachments: Attachment[] = [];
	for (const property of properties) {
		const binary = binaries[property];
		if (binary === undefined) {
			throw new InputProblem(`${label}: the item has no binary property "${property}"`, 'Check the binary property names of the input item, or remove the option.');
		}
		const buffer = await context.helpers.getBinaryDataBuffer(itemIndex, property);
		attachments.push({ filename: binary.fileName ?? property, mimetype: binary.mimeType || 'application/octet-stream', data: buffer.toString('base64') });
	}
	return attachments;
}
