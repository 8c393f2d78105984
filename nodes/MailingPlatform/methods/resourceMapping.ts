import type { FieldType, ILoadOptionsFunctions, ResourceMapperField, ResourceMapperFields } from 'n8n-workflow';

import type { GenericOrderFormat } from '../actions/transaction/content';
import { GENERIC_ORDER_KEYS } from '../actions/transaction/content';

const FIELD_TYPES: Record<GenericOrderFormat, FieldType> = {
	text: 'string',
	float: 'number',
	timestamp: 'dateTime',
	json: 'array',
};

/** Content Fields' keys: the generic order type's, fixed by the API spec, so nothing is asked of the service. */
const GENERIC_ORDER_FIELDS: ResourceMapperField[] = [...GENERIC_ORDER_KEYS].map(([key, format]) => ({
	id: key,
	displayName: key,
	type: FIELD_TYPES[format],
	required: false,
	defaultMatch: false,
	canBeUsedToMatch: false,
	display: true,
}));

export async function getGenericOrderFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	return { fields: GENERIC_ORDER_FIELDS };
}
