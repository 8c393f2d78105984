import type { INodeProperties } from 'n8n-workflow';

import * as countBlocks from './countBlocks.operation';
import * as getBlocks from './getBlocks.operation';
import * as getUnsubscriptionReasons from './getUnsubscriptionReasons.operation';

export { countBlocks, getBlocks, getUnsubscriptionReasons };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['report'] } },
		options: [
			{
				name: 'Count Blocks',
				value: 'countBlocks',
				description: 'Count the block-status changes of contacts that match the filters',
				action: 'Count block status changes',
			},
			{
				name: 'Get Blocks',
				value: 'getBlocks',
				description: 'Get the block-status changes of contacts (blocked or unblocked)',
				action: 'Get block status changes',
			},
			{
				name: 'Get Unsubscription Reasons',
				value: 'getUnsubscriptionReasons',
				description: 'Get the reasons contacts gave for unsubscribing, with how often each was given',
				action: 'Get unsubscription reasons',
			},
		],
		default: 'getBlocks',
	},
	...getBlocks.description,
	...countBlocks.description,
	...getUnsubscriptionReasons.description,
];
