import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { parameter, readInteger } from '../../helpers/parameters';

export const mailingIdProperty: INodeProperties = {
	displayName: 'Mailing ID',
	name: 'mailingId',
	type: 'number',
	// Empty until the user enters one: a 0 default was shown as 1 (the field's minimum) but sent as 0.
	default: null,
	required: true,
	typeOptions: { minValue: 1, numberPrecision: 0 },
	description: 'ID of the mailing in the platform, a positive whole number',
};

export function readMailingId(this: IExecuteFunctions, itemIndex: number): number {
	return readInteger(parameter<unknown>(this, 'mailingId', itemIndex, undefined), 'Mailing ID', 1);
}
