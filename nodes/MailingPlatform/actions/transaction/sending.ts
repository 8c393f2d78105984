import { thousands } from '../../helpers/numbers';
import type { Body } from './packing';
import { packBodies, unpackBody } from './packing';
import type { ReportEntry } from './report';
import type { PostTransactions, RequestFailure } from './request';

/** What became of the transactions of one request, in body order. */
export type RequestOutcome =
	| { kind: 'reported'; itemIndexes: readonly number[]; entries: ReportEntry[] }
	| { kind: 'failed'; itemIndexes: readonly number[]; failure: RequestFailure; queuedBefore: number };

/**
 * Sends bodies in order, each transaction at most once, counting what the service queued. The
 * limit starts at `maxBytes`; a 413 says the account's limit is lower, so it drops to half the
 * refused body, and that body and every later one above the limit are re-packed by the same
 * packer before they go. With `stopAtFailure` nothing more is sent after a failed request.
 */
export class Sender {
	/** Transactions the service queued so far. */
	queued = 0;

	stopped = false;

	private limit: number;

	constructor(
		maxBytes: number,
		private readonly post: PostTransactions,
		private readonly stopAtFailure: boolean,
	) {
		this.limit = maxBytes;
	}

	/** The outcomes of sending `body`: one, or one per smaller body after a 413. */
	async send(body: Body): Promise<RequestOutcome[]> {
		const outcomes: RequestOutcome[] = [];
		await this.sendInto(body, outcomes);
		return outcomes;
	}

	private async sendInto(body: Body, outcomes: RequestOutcome[]): Promise<void> {
		if (this.stopped) return;
		const { itemIndexes, bytes } = body;
		if (bytes.length > this.limit && itemIndexes.length > 1) {
			// A 413 does not queue anything, so the transactions may go again in smaller bodies.
			for (const packed of packBodies(unpackBody(body), this.limit)) {
				if (packed.kind === 'body') await this.sendInto(packed.body, outcomes);
			}
			return;
		}
		const result = await this.post(bytes, itemIndexes.length, itemIndexes[0]);
		if (result.kind === 'tooLarge' && itemIndexes.length > 1) {
			this.limit = Math.min(this.limit, Math.floor(bytes.length / 2));
			return await this.sendInto(body, outcomes);
		}
		if (result.kind === 'reported') {
			for (const entry of result.entries) if (entry.queued) this.queued++;
			outcomes.push({ kind: 'reported', itemIndexes, entries: result.entries });
			return;
		}
		const failure: RequestFailure =
			result.kind === 'failed'
				? result.failure
				: {
						message: `The service refused the transaction as too large (413), even sent alone (${thousands(bytes.length)} bytes)`,
						description: 'Its limit is lower than documented. Make the content or attachments of this item smaller.',
						httpCode: '413',
					};
		outcomes.push({ kind: 'failed', itemIndexes, failure, queuedBefore: this.queued });
		this.stopped = this.stopAtFailure;
	}
}
