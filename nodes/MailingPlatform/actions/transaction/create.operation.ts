/**
 * Transaction › Create: every input item's transaction, built, checked and sent in as few requests
 * as the service takes, each item ending as exactly one output or error item, paired with it.
 *
 * The steps, in `execute` below, hand results on in one direction:
 * - An `Outcome` (results.ts) decides what became of some items, once each: `refused` before
 *   sending (its build or the packer refused it, or n8n's store could not be asked), `skipped`
 *   (its key was sent before), `packed` (Dry Run), `reported` (the service answered: one report
 *   entry per item) or `failed` (its request failed as a whole; the error says whether the service
 *   may have acted on it). A step decides an item only if no earlier step did; an item the node
 *   stopped before (at a failure, without continue-on-fail) has none.
 * - A `KeyOutcome` (results.ts) says where an item's Deduplication Key did not end as its outcome
 *   implies (a release or a recording n8n's store did not confirm).
 * - The packer's `Refusal` (packing.ts) is a transaction no request can carry; sending turns it
 *   into a `refused` outcome.
 * - An `ItemResult` (helpers/itemResults.ts) is an item's output, rendered from its outcome
 *   (render.ts); the router alone turns results into output or error items, or throws: with a
 *   key and On Error › Stop Workflow, the execution's failure where orders are left unsent (unsent.ts).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { FailurePolicy, OperationResult } from '../../helpers/itemResults';
import { itemError, paired } from '../../helpers/itemResults';
import { isSet, readerFor, readInteger } from '../../helpers/parameters';
import { DEFAULT_HISTORY_SIZE, DEFAULT_MAX_WAIT_SECONDS, MAX_HISTORY_SIZE, MAX_WAIT_SECONDS, SPEC_MAX_REQUEST_BYTES } from './create.description';
import { KeyClaims } from './deduplication';
import { beyondHistory, skipRepeatedKeys } from './deduplicationKey';
import { renderOutcomes } from './render';
import type { KeyOutcome, Outcome } from './results';
import { decidedInTry } from './results';
import { packForDryRun, sendTransactions } from './sending';
import { buildTransactions, contactOf } from './transaction';
import { unsentFailure } from './unsent';
import { beforeTimeoutMs } from './waits';
import { monotonicMs } from '../../transport/accountGate';

export { description } from './create.description';

/** Transaction › Create's node-wide settings, read once for all items. */
interface CreateSettings {
	inputMode: string;
	validateJsonContent: boolean;
	ignoreInvalid: boolean;
	/** The largest body to send. */
	maxRequestBytes: number;
	dryRun: boolean;
	maxWaitSeconds: number;
	/** Deduplication History Size when the Deduplication Key option is on. */
	historySize?: number;
}

/**
 * Read option by option, for the first item: reading the whole Options collection would evaluate
 * the Deduplication Key's expression for the first item, which belongs to that item alone.
 */
function readCreateSettings(context: IExecuteFunctions): CreateSettings {
	const option = <T>(name: string, fallback: T): T => readerFor(context, `options.${name}`, fallback)(0);
	return {
		inputMode: readerFor(context, 'inputMode', 'fields')(0),
		validateJsonContent: option<unknown>('validateGenericOrderContent', false) === true,
		ignoreInvalid: option<unknown>('ignoreInvalidTransactions', true) !== false,
		maxRequestBytes: readInteger(option<unknown>('maxRequestBytes', SPEC_MAX_REQUEST_BYTES), 'Max Request Bytes', 1024, SPEC_MAX_REQUEST_BYTES),
		dryRun: option<unknown>('dryRun', false) === true,
		maxWaitSeconds: readInteger(option<unknown>('maxWaitSeconds', DEFAULT_MAX_WAIT_SECONDS), 'Max Wait Seconds', 1, MAX_WAIT_SECONDS),
		historySize: isSet(context, 'options.deduplicationKey')
			? readInteger(option<unknown>('deduplicationHistorySize', DEFAULT_HISTORY_SIZE), 'Deduplication History Size', 1, MAX_HISTORY_SIZE)
			: undefined,
	};
}

/** The items, in input order, that no outcome covers yet and that have a transaction to send. */
function undecided(transactions: ReadonlyArray<unknown>, outcomes: readonly Outcome[]): number[] {
	const decided = new Uint8Array(transactions.length);
	for (const outcome of outcomes) for (const itemIndex of outcome.itemIndexes) decided[itemIndex] = 1;
	const order: number[] = [];
	for (let itemIndex = 0; itemIndex < transactions.length; itemIndex++) {
		if (decided[itemIndex] === 0 && transactions[itemIndex] !== undefined) order.push(itemIndex);
	}
	return order;
}

/**
 * An item that reached the service in an earlier try of this node run keeps that outcome, whatever
 * this try built for it (an expression with `$now` may build differently); the others are decided anew.
 */
function withEarlierTries(refused: readonly Outcome[], earlier: readonly Outcome[]): Outcome[] {
	const kept = new Set(earlier.flatMap((outcome) => outcome.itemIndexes));
	return [...earlier, ...refused.filter((outcome) => outcome.itemIndexes.every((itemIndex) => !kept.has(itemIndex)))];
}

/**
 * The steps, in order; each returns the outcomes of the items it decided, and an item decided by
 * one step goes to no later one: built (or refused), kept from an earlier try of this node run
 * (n8n's Retry On Fail), skipped for a repeated key, packed (Dry Run), or claimed by its key (or
 * skipped) and sent. Then the keys are settled, and the outcomes become the items' results.
 */
export async function execute(this: IExecuteFunctions, policy: FailurePolicy, earlier: unknown): Promise<OperationResult> {
	// Max Wait Seconds counts from here: waiting for another execution's hold on a shared key is waiting too.
	const startedMs = monotonicMs();
	let settings: CreateSettings;
	try {
		settings = readCreateSettings(this);
	} catch (problem) {
		return { results: this.getInputData().map((_, itemIndex) => ({ error: itemError(this.getNode(), problem, itemIndex), pairedItem: paired(itemIndex) })) };
	}
	const { transactions, refused, deduplication } = await buildTransactions(this, settings);
	const outcomes = withEarlierTries(refused, (earlier as Outcome[] | undefined) ?? []);
	const decide = (decided: readonly Outcome[]) => {
		for (const outcome of decided) outcomes.push(outcome);
	};
	let order = undecided(transactions, outcomes);
	if (deduplication !== undefined) {
		const repeated = skipRepeatedKeys(deduplication.keys, order);
		decide(repeated.skipped);
		order = repeated.order;
	}
	// With a key, a failure stops nothing: the execution fails after every order it could send went (unsent.ts).
	const limits = { maxRequestBytes: settings.maxRequestBytes, stopAtFailure: !policy.continueOnFail && deduplication === undefined };
	// Without continue-on-fail a refusal, or a failure an earlier try kept, stops the node before anything is sent.
	if (limits.stopAtFailure && outcomes.some((outcome) => outcome.kind === 'refused' || outcome.kind === 'failed')) order = [];

	let keyOutcomes: KeyOutcome[] = [];
	const keys = deduplication?.keys;
	const latestMs = beforeTimeoutMs(this, startedMs);
	const sending = { ...limits, ignoreInvalid: settings.ignoreInvalid, maxWaitSeconds: settings.maxWaitSeconds, latestMs };
	const tooMany = deduplication === undefined ? undefined : beyondHistory(deduplication, order);
	if (settings.dryRun) {
		decide(packForDryRun(transactions, order, limits));
	} else if (tooMany !== undefined) {
		decide([tooMany]);
	} else if (deduplication === undefined) {
		decide(await sendTransactions(this, transactions, order, sending));
	} else {
		// From the hold's start, as the items' waits count: from the node's start, a slow machine's time before the hold would fail an item held by another execution before it waited Max Wait Seconds.
		const { claims, busy } = await KeyClaims.hold(this, deduplication, order, Math.min(latestMs, monotonicMs() + settings.maxWaitSeconds * 1000));
		decide(busy);
		// Without continue-on-fail the node stops at those items' failure: nothing is sent.
		const free = busy.length > 0 && limits.stopAtFailure ? [] : order.filter((itemIndex) => !busy.some((outcome) => outcome.itemIndexes.includes(itemIndex)));
		try {
			decide(await sendTransactions(this, transactions, free, { ...sending, keys: claims }));
		} finally {
			await claims.settled();
			keyOutcomes = claims.outcomes;
		}
	}
	const results = renderOutcomes(this, outcomes, { transactions, contactOf, keys, keyOutcomes, dryRun: settings.dryRun });
	const failure = deduplication === undefined || settings.dryRun || policy.continueOnFail ? undefined : unsentFailure(this, outcomes, results);
	return { results, reached: outcomes.filter(decidedInTry), failure };
}
