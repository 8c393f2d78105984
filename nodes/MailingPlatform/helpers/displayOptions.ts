import type { INodeProperties } from 'n8n-workflow';

/** Shows `properties` only for one resource and operation, keeping their own conditions. */
export function showFor(
	resource: string,
	operation: string,
	properties: INodeProperties[],
): INodeProperties[] {
	return properties.map((property) => ({
		...property,
		displayOptions: {
			...property.displayOptions,
			show: { ...property.displayOptions?.show, resource: [resource], operation: [operation] },
		},
	}));
}
