import type { INodeProperties } from 'n8n-workflow';

import * as rename from './rename.operation';

export { rename };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['contactField'] } },
		options: [
			{
				name: 'Rename',
				value: 'rename',
				description: 'Rename a custom contact field, keeping its type and values',
				action: 'Rename a custom contact field',
			},
		],
		default: 'rename',
	},
	...rename.description,
];
