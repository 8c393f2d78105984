import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { refusal } from './parameters';
import type { Attachment } from './validation';
import { MAX_ATTACHMENT_BYTES, isExecutable } from './validation';

const LABEL = 'Attachment Binary Properties';

/** The item's binary properties as attachments in the API's shape, refused when the service would refuse them. */
export async function binaryAttachments(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
	properties: string[],
): Promise<Attachment[]> {
	const node = context.getNode();
	const attachments: Attachment[] = [];
	let total = 0;
	for (const property of properties) {
		const binary = item.binary?.[property];
		if (binary === undefined) throw refusal(node, `${LABEL}: the item has no binary property "${property}"`);
		const filename = binary.fileName ?? property;
		const mimetype = binary.mimeType || 'application/octet-stream';
		if (isExecutable(filename, mimetype)) {
			throw refusal(
				node,
				`${LABEL}: "${filename}" (${mimetype}) in "${property}" is an executable file, which the service does not allow`,
			);
		}
		// Read through n8n: binary.data is empty when binaries are kept on disk or in S3.
		const buffer = await context.helpers.getBinaryDataBuffer(itemIndex, property);
		total += buffer.length;
		if (total > MAX_ATTACHMENT_BYTES) {
			throw refusal(
				node,
				`${LABEL}: the attachments add up to more than ${MAX_ATTACHMENT_BYTES.toLocaleString('en-US')} bytes, the service's limit per transaction`,
			);
		}
		attachments.push({ filename, mimetype, data: buffer.toString('base64') });
	}
	return attachments;
}
