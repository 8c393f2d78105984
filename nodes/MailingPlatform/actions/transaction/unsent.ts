/**
 * Keyed Create under On Error › Stop Workflow (n8n's default) fails its execution while orders
 * are left unsent for a cause that passes, after sending every order it could: n8n's retry of
 * the failed execution (Executions › Retry, or n8n's API) runs Create again on the same input,
 * and the Deduplication Key skips what the service queued or may have queued, so the retry sends
 * exactly the unsent orders. Under On Error › Continue n8n would answer a failure by passing the
 * input on, so there the orders stay items.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { ItemResult } from '../../helpers/itemResults';
import { counted } from '../../helpers/numbers';
import type { Outcome } from './results';
import { sendsOnRetry } from './results';

/** The execution's failure when a retry would send some of its items, naming the first item's cause. */
export function unsentFailure(context: IExecuteFunctions, outcomes: readonly Outcome[], results: readonly ItemResult[]): NodeOperationError | undefined {
	const unsent = outcomes.filter(sendsOnRetry).flatMap((outcome) => outcome.itemIndexes);
	if (unsent.length === 0) return undefined;
	const first = Math.min(...unsent);
	const result = results.find((candidate) => candidate.pairedItem.item === first);
	const cause = result !== undefined && 'error' in result ? `: ${result.error.message.replace(/^Not sent: /, '')}` : '';
	return new NodeOperationError(context.getNode(), `${counted(unsent.length, 'order was', 'orders were')} not sent${cause}`, {
		itemIndex: first,
		description: `Retrying this execution sends ${unsent.length === 1 ? 'it' : 'them'} once: the Deduplication Key skips the orders the service queued or may have queued. Retry it in n8n's Executions list, or through n8n's API (POST /executions/{id}/retry).`,
	});
}
