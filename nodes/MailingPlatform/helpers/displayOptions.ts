import type { INodeProperties, NodeParameterValueType } from 'n8n-workflow';

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

/**
 * A parameter whose default changed in node version `since`: n8n leaves parameters at their
 * default out of saved workflows, so nodes saved before keep the old default and new nodes
 * get the new one.
 */
export function defaultChangedIn(
	since: number,
	property: INodeProperties,
	defaults: { before: NodeParameterValueType; since: NodeParameterValueType },
): INodeProperties[] {
	const show = property.displayOptions?.show;
	return [
		{
			...property,
			default: defaults.before,
			displayOptions: { ...property.displayOptions, show: { ...show, '@version': [{ _cnd: { lt: since } }] } },
		},
		{
			...property,
			default: defaults.since,
			displayOptions: { ...property.displayOptions, show: { ...show, '@version': [{ _cnd: { gte: since } }] } },
		},
	];
}
