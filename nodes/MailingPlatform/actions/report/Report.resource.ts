import { defineResource } from '../resource';
import * as countBlocks from './countBlocks.operation';
import * as getBlocks from './getBlocks.operation';
import * as getUnsubscriptionReasons from './getUnsubscriptionReasons.operation';

export const report = defineResource({ name: 'Report', value: 'report' }, 'getBlocks', {
	getBlocks: {
		description: getBlocks.description,
		execute: getBlocks.execute,
		label: { name: 'Get Blocks', description: 'Get the block-status changes of contacts (blocked or unblocked)', action: 'Get block status changes' },
	},
	countBlocks: {
		description: countBlocks.description,
		execute: countBlocks.execute,
		label: { name: 'Count Blocks', description: 'Count the block-status changes of contacts that match the filters', action: 'Count block status changes' },
	},
	getUnsubscriptionReasons: {
		description: getUnsubscriptionReasons.description,
		execute: getUnsubscriptionReasons.execute,
		label: {
			name: 'Get Unsubscription Reasons',
			description: 'Get the reasons contacts gave for unsubscribing, with how often each was given',
			action: 'Get unsubscription reasons',
		},
	},
});
