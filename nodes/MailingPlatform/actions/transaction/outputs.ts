import type { IDataObject, IExecuteFunctions, INodeExecutionData, NodeApiError } from 'n8n-workflow';

import { thousands } from '../../helpers/numbers';
import { isPlainObject } from '../../helpers/objects';
import { errorItemJson } from '../../helpers/perItem';
import { serviceError } from '../../transport/errors';
import type { DeduplicationKey } from './deduplication';
import type { ReportEntry } from './report';
import type { RequestOutcome } from './sending';

type Failed = Extract<RequestOutcome, { kind: 'failed' }>;

const NOT_RECORDED = 'Its Deduplication Key was not recorded, so a re-run sends it.';

/** The contact identification a transaction carries, as the service's report names contacts. */
function contactOf(transaction: Record<string, unknown>): IDataObject {
	const imported = isPlainObject(transaction.import) ? transaction.import.contact : undefined;
	const contact = isPlainObject(imported) ? imported : isPlainObject(transaction.contact) ? transaction.contact : {};
	const identification: IDataObject = {};
	for (const key of ['id', 'email', 'external_id']) if (contact[key] !== undefined) identification[key] = contact[key];
	return identification;
}

/**
 * The output of every input item, paired with it and in input order; each step of Create settles
 * the items it decides. Whether an item goes to the error output is decided here, and only here:
 * errors and transactions the service did not queue do when the node has one; skipped duplicates
 * and dry runs never.
 */
export class ItemResults {
	private readonly json: IDataObject[];

	/** Each item's Deduplication Key, shown in its output; empty while the option is off. */
	private readonly keys: Array<DeduplicationKey | undefined> = [];

	constructor(
		count: number,
		private readonly settings: { errorOutput: boolean; deduplicated: boolean },
	) {
		this.json = new Array<IDataObject>(count);
	}

	rememberKey(itemIndex: number, key: DeduplicationKey): void {
		this.keys[itemIndex] = key;
	}

	keyOf(itemIndex: number): DeduplicationKey {
		return this.keys[itemIndex] as DeduplicationKey;
	}

	wasQueued(itemIndex: number): boolean {
		return this.json[itemIndex]?.queued === true;
	}

	/** A refused item's error item, as the per-item path made it. */
	refused(itemIndex: number, json: IDataObject): void {
		this.json[itemIndex] = this.settings.deduplicated && 'error' in json ? { ...json, message: joined(json.message, NOT_RECORDED) } : json;
	}

	reported(itemIndex: number, entry: ReportEntry): void {
		const key = this.keys[itemIndex];
		if (entry.queued) {
			const json: IDataObject = { queued: true, contact: entry.contact as IDataObject };
			// Set, not spread: this runs for every queued transaction.
			if (key !== undefined) json.deduplicationKey = key;
			this.json[itemIndex] = json;
			return;
		}
		const message = this.settings.deduplicated ? joined(entry.message, NOT_RECORDED) : entry.message;
		// n8n routes an item to the error output only when its JSON is exactly {error} or
		// {error, message}; it then adds the input item's fields (the contact among them).
		this.json[itemIndex] = this.settings.errorOutput
			? errorItemJson({ message: 'The transaction was not queued', description: message })
			: { queued: false, contact: entry.contact as IDataObject, message, ...keyField(key) };
	}

	skipped(itemIndex: number, transaction: Record<string, unknown>, reason: string, extra: IDataObject = {}): void {
		this.json[itemIndex] = { queued: false, skipped: true, deduplicationKey: this.keyOf(itemIndex), contact: contactOf(transaction), message: reason, ...extra };
	}

	dryRun(itemIndex: number, transaction: Record<string, unknown>, request: IDataObject): void {
		this.json[itemIndex] = {
			dryRun: true,
			queued: false,
			contact: contactOf(transaction),
			...keyField(this.keys[itemIndex]),
			message: 'Dry Run: checked and packed as a real run would, not sent',
			request,
			transaction,
		};
	}

	requestFailed(outcome: Failed): void {
		const json = errorItemJson(failureText(outcome, this.settings.deduplicated));
		for (const itemIndex of outcome.itemIndexes) this.json[itemIndex] = json;
	}

	items(): INodeExecutionData[] {
		return this.json.map((json, itemIndex) => ({ json, pairedItem: { item: itemIndex } }));
	}
}

function keyField(key: DeduplicationKey | undefined): IDataObject {
	return key === undefined ? {} : { deduplicationKey: key };
}

function joined(...texts: unknown[]): string {
	return texts.filter((text) => typeof text === 'string' && text !== '').join(' ');
}

/** What to say about a request that failed as a whole: which items it carried and what was queued before it. */
function failureText(outcome: Failed, deduplicated: boolean): { message: string; description: string } {
	const { failure, itemIndexes, queuedBefore } = outcome;
	const queued = `${thousands(queuedBefore)} items of earlier requests were already queued`;
	const earlier =
		queuedBefore === 0
			? 'No item of an earlier request was queued.'
			: deduplicated
				? `${queued}: a re-run skips them by their Deduplication Key.`
				: `${queued}: do not run the same input again, or their e-mails go out twice.`;
	return {
		message: `${failure.message} (items ${itemIndexes[0]} to ${itemIndexes[itemIndexes.length - 1]}, ${thousands(itemIndexes.length)} transactions)`,
		description: joined(failure.description, earlier, deduplicated ? NOT_RECORDED : ''),
	};
}

/** The node's error for a request that failed as a whole, when the node stops on it. */
export function requestError(context: IExecuteFunctions, outcome: Failed, deduplicated: boolean): NodeApiError {
	const httpCode = outcome.failure.httpCode ?? undefined;
	return serviceError(context, { ...failureText(outcome, deduplicated), httpCode }, outcome.itemIndexes[0]);
}
