import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { InputProblem } from '../../helpers/values';
import type { FailurePolicy, OperationResult } from '../../helpers/itemResults';
import { runPerItem } from '../../helpers/itemResults';
import { parameter as readParameter } from '../../helpers/parameters';
import { apiRequest } from '../../transport';

export const description: INodeProperties[] = showFor('contactField', 'rename', [
	{
		displayName: 'Old Name',
		name: 'oldName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. loyalty tier',
		description: 'Current name of the custom contact field, exactly as in the platform',
	},
	{
		displayName: 'New Name',
		name: 'newName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. loyalty level',
		description:
			'Name the field gets. Its data type and the values stored for contacts stay as they are.',
	},
]);

export async function execute(this: IExecuteFunctions, policy: FailurePolicy, earlier: unknown): Promise<OperationResult> {
	return await runPerItem(this, policy, async (itemIndex) => {
		const fieldName = (name: 'oldName' | 'newName', label: string) => {
			const value = String(readParameter<unknown>(this, name, itemIndex, '') ?? '').trim();
			if (value === '') {
				throw new InputProblem(`${label} is empty`, `Enter the ${label.toLowerCase()} of the custom contact field.`);
			}
			return value;
		};
		const oldName = fieldName('oldName', 'Old Name');
		const newName = fieldName('newName', 'New Name');

		await apiRequest.call(this, {
			method: 'PUT',
			path: ['contacts', 'fields', 'custom', oldName, newName],
			repeatable: false,
			itemIndex,
			errorDescriptions: {
				400: 'The service refused the names. Check that the new name is a valid field name.',
				404: `No custom contact field named "${oldName}" was found. Check the spelling and case of Old Name.`,
				409: `A contact field named "${newName}" probably exists already. Choose another New Name.`,
			},
		});
		return { renamed: true, oldName, newName };
	}, { once: true, earlier });
}
