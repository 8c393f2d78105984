/**
 * The model of the service, or a gateway in front of it: each request is answered as the case
 * draws it, when fast-check's scheduler lets it, and the record notes what the service queued.
 */
import type { Scheduler } from 'fast-check';

import type { Answer, CaseRecord, Carried, Life, RequestRecord, RetryAfter, SimulationCase } from './model';
import { acted } from './model';
import { never } from './storeRow';

export class ServiceModel {
	constructor(
		private readonly record: CaseRecord,
		private readonly simulated: SimulationCase,
		private readonly scheduler: Scheduler,
		/** Whether the case's answers strike (the redelivery after the case is answered at once, taking everything). */
		private readonly faulty: () => boolean,
		/** Whether a kill ended the process's life. */
		private readonly hasEnded: (caller: Life) => boolean,
		/** When the case began, for the trace. */
		private readonly startedAtMs: number,
	) {}

	/**
	 * The service: receives a request, acts on it when the scheduler lets it answer, and answers
	 * as the case says. A request without a body is a read (the sender's probe): it carries nothing.
	 * A killed process sends nothing, and the answers to what it had sent never reach it.
	 */
	async answer(caller: Life, { method, url, body }: { method: string; url: string; body?: Buffer }) {
		if (this.hasEnded(caller)) return await never();
		const { process: processIndex, life } = caller;
		const carried = body === undefined ? [] : (JSON.parse(body.toString('utf8')) as Array<{ content: Carried & { order: string } }>).map(({ content }) => ({ delivery: content.delivery, item: content.item, order: content.order }));
		const number = this.record.requests.length;
		const drawn = this.faulty() ? (this.simulated.answers[number] ?? TAKEN) : TAKEN;
		const answer: Answer = (body?.length ?? 0) > this.simulated.entityLimitBytes ? { kind: 'tooLarge' } : drawn;
		const request: RequestRecord = { number, process: processIndex, life, carried, bytes: body?.length ?? 0, answer, sentAtMs: Date.now() };
		this.record.requests.push(request);
		// The redelivery's answers come at once: its checks are about what the case left behind.
		if (this.faulty()) await this.scheduler.schedule(Promise.resolve(), `request ${number} (${JSON.stringify(answer)})`);
		if (answer.kind === 'silent') await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS));
		request.answeredAtMs = Date.now();
		if (process.env.SIMULATION_TRACE === '1') console.log(`request ${number} p${processIndex} at ${request.sentAtMs - this.startedAtMs}-${request.answeredAtMs - this.startedAtMs} ms ${JSON.stringify(answer)} [${carried.map((one) => `${one.order}@${one.delivery}`).join(', ')}]`);
		if (answer.kind === 'reordered') carried.slice(0, 1).forEach((transaction) => this.record.queue(transaction));
		else if (acted(answer)) for (const transaction of carried) this.record.queue(transaction);
		if (this.hasEnded(caller)) {
			request.lostAtKill = true;
			return await never();
		}
		const reports = (count: number, queued: boolean) => JSON.stringify({ reports: Array.from({ length: count }, () => (queued ? { queued, contact: null } : { queued, contact: null, message: 'Declined' })) });
		const status = (statusCode: number, headers: { [name: string]: string } = {}, text = '') => ({ statusCode, headers, body: text });
		if (method !== 'POST') return ['taken', 'declined', 'unreadable', 'reordered'].includes(answer.kind) ? status(200, {}, '<count>0</count>') : this.failure(answer, status);
		switch (answer.kind) {
			case 'taken':
				return status(answer.status, {}, reports(carried.length, true));
			case 'declined':
				return /ignore_invalid_transactions=false/.test(url) ? status(400, {}, '<error><message>Invalid transaction</message></error>') : status(200, {}, reports(carried.length, false));
			case 'reordered': {
				const entries = carried.map(({ order }, position) => (position === 0 ? { queued: true, contact: { email: emailOf(order) } } : { queued: false, contact: { email: emailOf(order) }, message: 'Declined' }));
				return status(200, {}, JSON.stringify({ reports: entries.reverse() }));
			}
			case 'unreadable': {
				const bodies = { garbled: 'not json', errorObject: '{"error":"Internal"}', fewer: reports(carried.length - 1, true), more: reports(carried.length + 1, true), empty: '' };
				return status(answer.status, {}, bodies[answer.body]);
			}
			default:
				return this.failure(answer, status);
		}
	}

	private failure(answer: Answer, status: (statusCode: number, headers?: { [name: string]: string }, text?: string) => unknown) {
		switch (answer.kind) {
			case 'refused':
				return status(answer.status, retryAfterHeader(answer.retryAfter));
			case 'tooLarge':
				return status(413);
			case 'status':
				return status(answer.status, answer.status < 400 ? { location: 'https://elsewhere.test/' } : {}, 'Error');
			case 'unreachable':
				throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
			case 'silent':
				throw Object.assign(new Error(`timeout of ${REQUEST_TIMEOUT_MS}ms exceeded`), { code: 'ECONNABORTED' });
			default:
				throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
		}
	}
}

const TAKEN: Answer = { kind: 'taken', status: 200 };

/** An order's contact: two transactions of one order name the same. */
export const emailOf = (order: string) => `${order}@example.com`;

/** The transport's timeout of a request the service never answers. */
const REQUEST_TIMEOUT_MS = 120_000;

function retryAfterHeader(retryAfter: RetryAfter | undefined): { [name: string]: string } {
	if (retryAfter === undefined) return {};
	if ('seconds' in retryAfter) return { 'retry-after': String(retryAfter.seconds) };
	if ('text' in retryAfter) return { 'retry-after': retryAfter.text };
	return { 'retry-after': new Date(Date.now() + retryAfter.dateInMs).toUTCString() };
}

