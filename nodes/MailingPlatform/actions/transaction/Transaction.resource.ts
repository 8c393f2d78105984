import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';

export { create };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['transaction'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Send transaction e-mails such as order confirmations, all items batched',
				action: 'Create transactions',
			},
		],
		default: 'create',
	},
	...create.description,
];
