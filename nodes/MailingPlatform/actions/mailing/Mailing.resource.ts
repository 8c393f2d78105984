import { defineResource } from '../resource';

const CHECK_ON_RETRY =
	'Retry On Fail repeats only the check starts the service did not take (it stayed unavailable, or was never reached); a start it answered is not sent again, and its result stays.';
import * as getTestSendOutResult from './getTestSendOutResult.operation';
import * as schedule from './schedule.operation';
import * as startBounceCheck from './startBounceCheck.operation';
import * as startMessageSizeCheck from './startMessageSizeCheck.operation';

export const mailing = defineResource({ name: 'Mailing', value: 'mailing' }, 'startMessageSizeCheck', {
	startMessageSizeCheck: {
		description: startMessageSizeCheck.description,
		execute: startMessageSizeCheck.execute,
		onRetry: CHECK_ON_RETRY,
		label: {
			name: 'Start Message Size Check',
			description: 'Start the message size check of a mailing (takes about a minute)',
			action: 'Start the message size check of a mailing',
		},
	},
	startBounceCheck: {
		description: startBounceCheck.description,
		execute: startBounceCheck.execute,
		onRetry: CHECK_ON_RETRY,
		label: { name: 'Start Bounce Check', description: 'Start the bounce check of a mailing (takes about a minute)', action: 'Start the bounce check of a mailing' },
	},
	getTestSendOutResult: {
		description: getTestSendOutResult.description,
		execute: getTestSendOutResult.execute,
		label: {
			name: 'Get Test Send-Out Result',
			description: 'Read the result of the test send-out check of a mailing',
			action: 'Get the test send out result of a mailing',
		},
	},
	schedule: {
		description: schedule.description,
		execute: schedule.execute,
		label: {
			name: 'Schedule',
			description:
				'Set when a regular mailing is sent, optionally spread over time. Must be the last call for the mailing: content changes afterwards stop it from being sent.',
			action: 'Schedule a mailing',
		},
	},
});
