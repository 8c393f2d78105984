import type { INodeProperties } from 'n8n-workflow';

import * as getTestSendOutResult from './getTestSendOutResult.operation';
import * as schedule from './schedule.operation';
import * as startBounceCheck from './startBounceCheck.operation';
import * as startMessageSizeCheck from './startMessageSizeCheck.operation';

export { getTestSendOutResult, schedule, startBounceCheck, startMessageSizeCheck };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['mailing'] } },
		options: [
			{
				name: 'Get Test Send-Out Result',
				value: 'getTestSendOutResult',
				description: 'Read the result of the test send-out check of a mailing',
				action: 'Get the test send out result of a mailing',
			},
			{
				name: 'Schedule',
				value: 'schedule',
				description:
					'Set when a regular mailing is sent, optionally spread over time. Must be the last call for the mailing: content changes afterwards stop it from being sent.',
				action: 'Schedule a mailing',
			},
			{
				name: 'Start Bounce Check',
				value: 'startBounceCheck',
				description: 'Start the bounce check of a mailing (takes about a minute)',
				action: 'Start the bounce check of a mailing',
			},
			{
				name: 'Start Message Size Check',
				value: 'startMessageSizeCheck',
				description: 'Start the message size check of a mailing (takes about a minute)',
				action: 'Start the message size check of a mailing',
			},
		],
		default: 'startMessageSizeCheck',
	},
	...startMessageSizeCheck.description,
	...startBounceCheck.description,
	...getTestSendOutResult.description,
	...schedule.description,
];
