import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import { isPlainObject } from '../../helpers/values';
import type { FailurePolicy, OperationResult } from '../../helpers/itemResults';
import { runPerItem } from '../../helpers/itemResults';
import { xmlRequest } from '../../transport';
import { serviceError } from '../../transport/errors';
import { mailingIdProperty, readMailingId } from './mailingId';

export const description: INodeProperties[] = showFor('mailing', 'getTestSendOutResult', [mailingIdProperty]);

export async function execute(this: IExecuteFunctions, policy: FailurePolicy): Promise<OperationResult> {
	return await runPerItem(this, policy, async (itemIndex) => {
		const mailingId = readMailingId.call(this, itemIndex);
		const { data } = await xmlRequest.call(this, {
			method: 'GET',
			path: ['mailings', mailingId, 'checks', 'testsendout'],
			repeatable: true,
			itemIndex,
			errorDescriptions: {
				404: `Either no mailing with ID ${mailingId} exists, or it has no test-send-out result yet. Check Mailing ID; if it is right, run the test send-out in the platform and read the result once it has finished.`,
				409: `Mailing ${mailingId} is sealed (already sent out), so its test-send-out result can no longer be read.`,
			},
		});
		const result = data.sendoutcheck;
		if (!isPlainObject(result)) {
			throw serviceError(
				this,
				{
					message: 'The service answered without a sendoutcheck element',
					description: 'If this persists, report it with the workflow to the package maintainers.',
				},
				itemIndex,
			);
		}
		// Elements the spec does not name pass through; a state it does not list is kept as is.
		const { mailingid, timestamp, state, ...others } = result;
		return {
			mailingId: typeof mailingid === 'number' ? mailingid : mailingId,
			timestamp: timestamp ?? null,
			state: state ?? null,
			...others,
		};
	});
}
