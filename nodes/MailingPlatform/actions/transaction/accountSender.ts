/**
 * One sender of transactions per account in this n8n process. Create executions running at the
 * same time (one order per webhook call, at a shop's rush) hand it their transactions, and it
 * sends them one request at a time: while a request is under way or the account's gate holds it,
 * transactions that arrive wait together and go in the next request, in arrival order. With no
 * request under way, a transaction leaves at once. A 429 or 503 pauses the whole account once
 * (the transport's gate), and the refused transactions go again in the requests after the pause.
 */
import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { seconds } from '../../helpers/numbers';
import type { AccountGate } from '../../transport/accountGate';
import { accountOf, gateOf, monotonicMs } from '../../transport/accountGate';
import type { ServiceError } from '../../transport/errors';
import { asksToSlowDown, retryDelayMs } from '../../transport/retry';
import type { Body } from './packing';
import type { QueueReport } from './results';
import type { SendJob } from './sendJob';

/** Posts one body of `count` transactions for the account and reads the service's report of each. Throws the transport's `ServiceError`. */
export type PostBody = (context: IExecuteFunctions, body: Buffer, count: number, ignoreInvalid: boolean, earlierAttempts: number) => Promise<QueueReport[]>;

interface Part {
	job: SendJob;
	body: Body;
}

/** The longest nap between looks at the queue, so that a stopped or expired execution is let go soon. */
const MAX_NAP_MS = 1000;

/** The parts' bodies as one JSON array: `[a]` and `[b,c]` make `[a,b,c]`. */
function joined(parts: readonly Part[]): Buffer {
	if (parts.length === 1) return parts[0].body.bytes;
	const pieces = parts.map(({ body }, index) => body.bytes.subarray(index === 0 ? 0 : 1, body.bytes.length - 1));
	const total = pieces.reduce((sum, piece) => sum + piece.length, 0) + parts.length;
	const bytes = Buffer.allocUnsafe(total);
	let offset = 0;
	for (const [index, piece] of pieces.entries()) {
		offset += piece.copy(bytes, offset);
		// A comma after each piece, the closing bracket after the last.
		bytes[offset] = index === pieces.length - 1 ? 0x5d : 0x2c;
		offset++;
	}
	return bytes;
}

export class AccountSender {
	private readonly jobs: SendJob[] = [];

	private pumping = false;

	/** The account's body limit a 413 taught, below Max Request Bytes; forgotten with the sender. */
	private learnedLimit = Number.POSITIVE_INFINITY;

	constructor(
		private readonly gate: AccountGate,
		private readonly post: PostBody,
		private readonly onIdle: () => void = () => {},
	) {}

	submit(job: SendJob): void {
		this.jobs.push(job);
		if (!this.pumping) void this.pump();
	}

	/** The job's execution was stopped: what has not left is not sent; a request under way is not aborted. */
	withdraw(job: SendJob): void {
		job.withdrawn = true;
		if (!job.inFlight) this.letGo(job);
	}

	private async pump(): Promise<void> {
		this.pumping = true;
		this.gate.users++;
		try {
			for (this.letGoExpired(); this.jobs.length > 0; this.letGoExpired()) {
				const wait = this.gate.waitMs();
				if (wait > 0) await this.nap(wait);
				else await this.sendNext();
			}
		} catch (error) {
			// A fault of this code, not of the service: nobody may wait for ever.
			for (const job of [...this.jobs]) job.giveUp(`Not sent: ${(error as Error).message}`, 'Run the workflow again.');
			this.jobs.length = 0;
		} finally {
			this.gate.users--;
			this.pumping = false;
			this.onIdle();
		}
	}

	/** Waits for the gate, counting the wait of every job waiting meanwhile, with the reason. */
	private async nap(wait: number): Promise<void> {
		const reason = this.gate.whyWaiting();
		const firstDeadline = this.jobs.reduce((first, job) => Math.min(first, job.deadlineMs), Number.POSITIVE_INFINITY);
		const started = monotonicMs();
		await sleep(Math.max(1, Math.min(wait, firstDeadline - started, MAX_NAP_MS)));
		for (const job of this.jobs) {
			job.note.waitedMs += monotonicMs() - started;
			job.note.reasons.add(reason);
		}
	}

	/**
	 * The next request's parts: the first waiting job's next body, then, while there is room, the
	 * next bodies of the jobs after it. A job whose invalid transaction fails its whole request
	 * (Ignore Invalid Transactions off) shares a request with nobody.
	 */
	private nextParts(): Part[] {
		const parts: Part[] = [];
		let size = 0;
		let limit = this.learnedLimit;
		for (const job of [...this.jobs]) {
			if (job.isFinished) continue;
			const alone = !job.settings.ignoreInvalid;
			if (parts.length > 0 && (alone || !parts[0].job.settings.ignoreInvalid)) continue;
			const jobLimit = Math.min(limit, job.settings.maxRequestBytes);
			const body = parts.length === 0 ? job.nextBody(jobLimit, true) : job.nextBody(jobLimit - size + 1, false);
			if (body === undefined) continue;
			size = parts.length === 0 ? body.bytes.length : size + body.bytes.length - 1;
			limit = jobLimit;
			parts.push({ job, body });
			if (alone) break;
		}
		return parts;
	}

	private async sendNext(): Promise<void> {
		const parts = this.nextParts();
		if (parts.length > 0) await this.send(parts);
		// Cannot happen: the first job waiting gives a body or finishes. A loop without a wait would hang the process.
		else if (this.jobs.some((job) => !job.isFinished)) throw new Error('no transaction could be packed');
		this.removeFinished();
	}

	private async send(parts: Part[]): Promise<void> {
		const body = joined(parts);
		const count = parts.reduce((sum, part) => sum + part.body.end - part.body.start, 0);
		const [{ job: head }] = parts;
		for (const { job } of parts) {
			job.inFlight = true;
			job.note.requests++;
			job.note.companions += parts.length - 1;
		}
		try {
			const earlierAttempts = parts.reduce((most, part) => Math.max(most, part.job.attempts), 0);
			const reports = await this.post(head.context, body, count, head.settings.ignoreInvalid, earlierAttempts);
			let offset = 0;
			for (const part of parts) {
				const next = offset + part.body.end - part.body.start;
				part.job.reported(part.body, reports.slice(offset, next));
				offset = next;
			}
		} catch (error) {
			this.answerFailure(parts, error as ServiceError, body.length, count);
		} finally {
			for (const { job } of parts) {
				job.inFlight = false;
				if (job.withdrawn) this.letGo(job);
			}
			this.removeFinished();
		}
	}

	/**
	 * A request the service did not act on goes again: after a 413 at half its size, after a 429
	 * or 503 when the gate's pause is over, when the service could not be reached after a backoff.
	 * Any other failure is its transactions' outcome.
	 */
	private answerFailure(parts: readonly Part[], failure: ServiceError, bytes: number, count: number): void {
		const tooLarge = failure.httpCode === '413';
		if (failure.notProcessed && (!tooLarge || count > 1)) {
			if (tooLarge) this.learnedLimit = Math.floor(bytes / 2);
			let attempts = 0;
			for (const { job, body } of parts) {
				job.attempts++;
				attempts = Math.max(attempts, job.attempts);
				job.sendAgain(body);
			}
			if (!tooLarge && !asksToSlowDown(Number(failure.httpCode))) this.gate.pause(retryDelayMs(attempts - 1, undefined), 'the service could not be reached');
			return;
		}
		for (const { job, body } of parts) job.failed(body, failure);
	}

	/** Gives up, as not sent, the jobs that were stopped or have waited longer than Max Wait Seconds. */
	private letGoExpired(): void {
		const now = monotonicMs();
		for (const job of [...this.jobs]) if (!job.inFlight && (job.withdrawn || now >= job.deadlineMs)) this.letGo(job);
		this.removeFinished();
	}

	private letGo(job: SendJob): void {
		if (job.isFinished) return;
		if (job.withdrawn) {
			job.giveUp('Not sent: the execution was stopped before this transaction left', 'It was not sent, so running it again sends it once.');
		} else {
			const why = [...job.note.reasons].join('; ') || 'earlier requests of the account were under way';
			const message = `Not sent: it waited ${seconds(job.settings.maxWaitSeconds * 1000)} for the account's requests (Max Wait Seconds), because of ${why}`;
			job.giveUp(message, `The service did not get it, so running it again sends it once. Requests that carried it and were refused: ${job.attempts}.`);
		}
		this.removeFinished();
	}

	private removeFinished(): void {
		for (let index = this.jobs.length - 1; index >= 0; index--) if (this.jobs[index].isFinished) this.jobs.splice(index, 1);
	}
}

const senders = new Map<string, AccountSender>();

/** The sender of the account `data` names, made on first use and forgotten once it has nothing to send. */
export function senderOf(data: ICredentialDataDecryptedObject | undefined, post: PostBody): AccountSender {
	const account = accountOf(data);
	let sender = senders.get(account);
	if (sender === undefined) {
		sender = new AccountSender(gateOf(data), post, () => senders.delete(account));
		senders.set(account, sender);
	}
	return sender;
}
