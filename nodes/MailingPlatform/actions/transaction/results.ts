/** The results Create's steps return; create.operation.ts says what each kind means and who makes it. */
import type { IDataObject } from 'n8n-workflow';

import { counted } from '../../helpers/numbers';
import { InputProblem } from '../../helpers/values';
import type { ServiceError } from '../../transport/errors';
import { decidedForGood, mayHaveActed } from '../../transport/errors';
import type { Refusal } from './packing';

/** The service's report entry of one transaction, as the output item shows it (its fields pass through). */
export interface QueueReport extends IDataObject {
	queued: boolean;
	contact: IDataObject | null;
	message?: string;
	deduplicationKey?: string;
}

/** Dry Run: the request a transaction would go in, its size and count of transactions. */
interface RequestSummary {
	number: number;
	bytes: number;
	transactions: number;
}

export type Outcome = { readonly itemIndexes: readonly number[] } & (
	/** `passes`: the refusal was n8n's store's, which a later try may find working. */
	| { kind: 'refused'; problem: unknown; passes?: boolean }
	/** `unknown`: its key was taken by an execution whose outcome this one does not know: the service may or may not have queued it. */
	| { kind: 'skipped'; reason: string; unknown?: boolean }
	| { kind: 'packed'; request: RequestSummary }
	/** `reports[i]` belongs to `itemIndexes[i]`. */
	| { kind: 'reported'; reports: readonly QueueReport[] }
	| { kind: 'failed'; error: ServiceError }
);

/** Where an item's key did not end as its outcome implies: its release failed, or another execution held it all along. */
export type KeyOutcome = { readonly itemIndexes: readonly number[] } & ({ kind: 'notReleased'; reason: string } | { kind: 'heldByAnother' });

/**
 * Whether the service may have queued the transaction at `position` of `outcome`: its key is kept
 * exactly then, and given back otherwise, so that a re-run sends it.
 */
export function mayHaveQueued(outcome: Outcome, position: number): boolean {
	if (outcome.kind === 'reported') return outcome.reports[position].queued;
	return outcome.kind === 'failed' && mayHaveActed(outcome.error);
}

/**
 * Whether a try of the node decided the items for good (transport/errors.ts): the service
 * reported on each, or their request failed for good. n8n's Retry On Fail sends the others again.
 */
export function decidedInTry(outcome: Outcome): boolean {
	return outcome.kind === 'reported' || (outcome.kind === 'failed' && decidedForGood(outcome.error));
}

/**
 * Whether a retry of the execution may send the items of `outcome`: they were not sent, for a
 * cause that passes (the account refused or failed to answer for longer than Max Wait Seconds,
 * another execution held their key, n8n's store could not be asked, the execution was stopped),
 * not for a refusal the service would give again (a 4xx but 429).
 */
export function sendsOnRetry(outcome: Outcome): boolean {
	if (outcome.kind === 'refused') return outcome.passes === true;
	return outcome.kind === 'failed' && outcome.error.notProcessed && !/^4(?!29)\d\d$/.test(String(outcome.error.httpCode ?? ''));
}

/** What a failure's text says of the items queued before it, e.g. "2 items of earlier requests were already queued". */
export const alreadyQueued = (count: number) => `${counted(count, 'item of an earlier request was', 'items of earlier requests were')} already queued`;

/** A refusal by the packer as the item's outcome; the transactions queued before it are named in its hint. */
export function refusedOutcome({ start, refusal }: Refusal, order: readonly number[], queuedBefore: number): Outcome {
	const earlier = queuedBefore === 0 ? '' : ` ${alreadyQueued(queuedBefore)}.`;
	return { kind: 'refused', itemIndexes: [order[start]], problem: new InputProblem(refusal.problem, refusal.hint + earlier) };
}
