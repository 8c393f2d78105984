import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

export const SOURCE_NODE_TYPE = 'harness.items';

/** A file to attach to an item as binary property `property`. */
export interface SourceBinary {
	property: string;
	fileName: string;
	mimeType: string;
	/** Base64 of the content. */
	data: string;
}

export interface SourceItem {
	json: IDataObject;
	binaries?: SourceBinary[];
}

/** Emits the items given in its `items` parameter, storing binaries the way n8n does. */
export class SourceItems implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Source Items',
		name: SOURCE_NODE_TYPE,
		group: ['input'],
		version: 1,
		description: 'Test input',
		defaults: { name: 'Source Items' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [{ displayName: 'Items', name: 'items', type: 'json', default: '[]' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const raw = this.getNodeParameter('items', 0) as string | SourceItem[];
		const items = (typeof raw === 'string' ? JSON.parse(raw) : raw) as SourceItem[];
		const output: INodeExecutionData[] = [];
		for (const item of items) {
			const data: INodeExecutionData = { json: item.json };
			for (const binary of item.binaries ?? []) {
				data.binary ??= {};
				data.binary[binary.property] = await this.helpers.prepareBinaryData(
					Buffer.from(binary.data, 'base64'),
					binary.fileName,
					binary.mimeType,
				);
			}
			output.push(data);
		}
		return [output];
	}
}
