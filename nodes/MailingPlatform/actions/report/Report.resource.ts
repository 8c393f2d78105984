import { defineResource } from '../resource';
import * as countBlocks from './countBlocks.operation';
import * as getBlocks from './getBlocks.operation';
import * as getUnsubscriptionReasons from './getUnsubscriptionReasons.operation';

export const report = defineResource({ name: 'Report', value: 'report' }, 'getBlocks', {
	getBlocks: {
		...getBlocks,
		label: { name: 'Get Blocks', description: 'Get the block-status changes of contacts (blocked or unblocked)', action: 'Get block status changes' },
	},
	countBlocks: {
		...countBlocks,
		label: { name: 'Count Blocks', description: 'Count the block-status changes of contacts that match the filters', action: 'Count block status changes' },
	},
	getUnsubscriptionReasons: {
		...getUnsubscriptionReasons,
		label: {
			name: 'Get Unsubscription Reasons',
			description: 'Get the reasons contacts gave for unsubscribing, with how often each was given',
			action: 'Get unsubscription reasons',
		},
	},
});
