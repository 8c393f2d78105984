import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { InputProblem } from '../../helpers/input';
import { thousands } from '../../helpers/numbers';
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
	const attachments: Attachment[] = [];
	let total = 0;
	for (const property of properties) {
		const binary = item.binary?.[property];
		if (binary === undefined) {
			throw new InputProblem(
				`${LABEL}: the item has no binary property "${property}"`,
				'Check the binary property names of the input item, or remove the option.',
			);
		}
		const filename = binary.fileName ?? property;
		const mimetype = binary.mimeType || 'application/octet-stream';
		if (isExecutable(filename, mimetype)) {
			throw new InputProblem(
				`${LABEL}: "${filename}" (${mimetype}) in "${property}" is an executable file, which the service does not allow`,
				'Leave the file out, or send a document format instead.',
			);
		}
		// Read through n8n: binary.data is empty when binaries are kept on disk or in S3.
		const buffer = await context.helpers.getBinaryDataBuffer(itemIndex, property);
		total += buffer.length;
		if (total > MAX_ATTACHMENT_BYTES) {
			throw new InputProblem(
				`${LABEL}: the attachments add up to more than ${thousands(MAX_ATTACHMENT_BYTES)} bytes, the service's limit per transaction`,
				'Attach fewer or smaller files.',
			);
		}
		attachments.push({ filename, mimetype, data: buffer.toString('base64') });
	}
	return attachments;
}
