import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { showFor } from '../../helpers/displayOptions';
import type { FailurePolicy, OperationResult } from '../../helpers/itemResults';
import { runPerItem } from '../../helpers/itemResults';
import { apiRequest } from '../../transport';
import { mailingIdProperty, readMailingId } from './mailingId';

interface CheckKind {
	operation: string;
	/** Name in the output and in messages. */
	check: string;
	/** Last path segment of the API call. */
	pathSegment: string;
	label: string;
}

/** The message size and bounce checks behave identically; only their name and path differ. */
export function startCheckOperation(kind: CheckKind): {
	description: INodeProperties[];
	execute: (this: IExecuteFunctions, policy: FailurePolicy, earlier: unknown) => Promise<OperationResult>;
} {
	const description = showFor('mailing', kind.operation, [mailingIdProperty]);

	async function execute(this: IExecuteFunctions, policy: FailurePolicy, earlier: unknown): Promise<OperationResult> {
		return await runPerItem(this, policy, async (itemIndex) => {
			const mailingId = readMailingId.call(this, itemIndex);
			await apiRequest.call(this, {
				method: 'POST',
				path: ['mailings', mailingId, 'checks', kind.pathSegment],
				// Not repeated after a 500 or a broken connection: the check may have started, and a
				// second start would be refused with 400, misreporting the first one.
				repeatable: false,
				itemIndex,
				errorDescriptions: {
					400: `A ${kind.label} check of mailing ${mailingId} is already running. A check takes about a minute: start it again later, or just wait for the running one.`,
					404: `No mailing with ID ${mailingId} was found. Check Mailing ID.`,
					409: `Mailing ${mailingId} is sealed (already sent out), so its checks can no longer be started.`,
					412: `The ${kind.label} check is not enabled for this account. Ask the platform to enable it, or leave this step out.`,
				},
			});
			return { mailingId, check: kind.check, started: true };
		}, { once: true, earlier });
	}

	return { description, execute };
}
