import type { IExecuteFunctions, NodeApiError } from 'n8n-workflow';

import { apiRequest } from '../../transport';
import type { ReportEntry } from './report';
import { readReport } from './report';

/** Why a request failed as a whole, in words for the user. */
export interface RequestFailure {
	message: string;
	description?: string | null;
	httpCode?: string | null;
}

/** What became of one POST transactions request. */
export type RequestResult =
	| { kind: 'reported'; entries: ReportEntry[] }
	| { kind: 'tooLarge' }
	| { kind: 'failed'; failure: RequestFailure };

export type PostTransactions = (body: Buffer, count: number, firstItemIndex: number) => Promise<RequestResult>;

/** Sends one body of transactions once (never resent: they are not idempotent) and reads the report. */
export function transactionPoster(context: IExecuteFunctions, ignoreInvalid: boolean): PostTransactions {
	return async (body, count, firstItemIndex) => {
		let response;
		try {
			response = await apiRequest.call(context, {
				method: 'POST',
				path: ['transactions'],
				query: { ignore_invalid_transactions: ignoreInvalid },
				jsonBody: body,
				repeatable: false,
				passStatuses: [413],
				itemIndex: firstItemIndex,
				errorDescriptions: {
					400: ignoreInvalid
						? 'The service refused the request body. None of its transactions was queued.'
						: 'With Ignore Invalid Transactions off, one invalid transaction fails its whole request, and none of its transactions was queued. Fix the transaction named in the message, or turn the option on.',
				},
			});
		} catch (error) {
			// The transport throws only NodeApiError, and already tells an unknown outcome apart.
			const { message, description, httpCode } = error as NodeApiError;
			return { kind: 'failed', failure: { message, description, httpCode } };
		}
		if (response.statusCode === 413) return { kind: 'tooLarge' };

		const report = readReport(response.body, count);
		if (report.ok) return { kind: 'reported', entries: report.entries };
		return {
			kind: 'failed',
			failure: {
				message: `The service's report could not be matched to the transactions sent: ${report.problem}`,
				description:
					'The request was accepted, so some of these transactions may have been queued. Check in the platform before you send them again.',
				httpCode: String(response.statusCode),
			},
		};
	};
}
