import type { DoubleResponse } from './http';
import { xmlError } from './http';

/**
 * Misbehaviour a test can ask of the double. Each fault applies to the next matching requests
 * and is used up by them; `match` narrows a fault to paths containing a string.
 */
export interface StatusFault {
	kind: 'status';
	status: number;
	retryAfter?: string;
	body?: string;
	/** The media type of `body`; text/html unless given. */
	contentType?: string;
}
/** Close the socket without answering, after the whole body was read (outcome unknown). */
export interface DropFault {
	kind: 'drop';
	/** Whether the service first did what was asked (queued the transactions), as when only its answer is lost. */
	afterProcessing?: boolean;
}
export type Fault = (StatusFault | DropFault) & { remaining: number; match?: string };

export class FaultInjector {
	private faults: Fault[] = [];

	/** Latency added to every answer, in milliseconds. */
	delayMs = 0;

	/** Until this settles, no answer is sent: a service slower than any wait a test measures (`holdAnswers`). */
	answersHeld: Promise<void> | undefined = undefined;

	/** Latency added per megabyte of the request's body, as a service that reads and queues it at that speed. */
	msPerMegabyte = 0;

	/** Largest body POST transactions accepts before 413 (the spec's limit by default). */
	entityLimitBytes = 9_000_000;

	/** The name of the report array in transaction answers (the spec shows both). */
	reportWrapper: 'reports' | 'report' = 'reports';

	/** Whether `queued` is sent as the strings "true"/"false" instead of booleans. */
	queuedAsString = false;

	/** Whether the report's entries come in reverse order, as from a service that does not keep the request's. */
	reportsReversed = false;

	/**
	 * Whether every error answer, of any route or fault, is its message as plain text instead
	 * of the spec's XML `<error>`, as the real service answers some errors.
	 */
	plainTextErrors = false;

	/**
	 * Orders (`order.id` of a transaction's content) for which POST transactions answers 503
	 * to every request carrying one, queuing nothing of it: a refusal that outlasts any retry.
	 */
	readonly unavailableForOrders = new Set<string>();

	/** The `Retry-After` of those 503s, if any (tests answer 0 so the node's retries take no time). */
	unavailableRetryAfter: string | undefined = undefined;

	/** Orders whose transactions the report answers with `queued: false`, as for a transaction the service will not send. */
	readonly notQueuedOrders = new Set<string>();

	failNext(
		count: number,
		status: number,
		options: { retryAfter?: string; body?: string; contentType?: string; match?: string } = {},
	): void {
		if (count <= 0) return;
		this.faults.push({ kind: 'status', status, remaining: count, ...options });
	}

	dropNext(count: number, options: { match?: string; afterProcessing?: boolean } = {}): void {
		if (count <= 0) return;
		this.faults.push({ kind: 'drop', remaining: count, ...options });
	}

	private releaseAnswers = () => {};

	/** Holds every answer, of requests under way and to come, until the returned function (or `reset`) is called. */
	holdAnswers(): () => void {
		this.answersHeld = new Promise<void>((resolve) => (this.releaseAnswers = resolve));
		return () => this.releaseHeldAnswers();
	}

	private releaseHeldAnswers(): void {
		this.answersHeld = undefined;
		this.releaseAnswers();
	}

	reset(): void {
		this.faults = [];
		this.delayMs = 0;
		this.releaseHeldAnswers();
		this.msPerMegabyte = 0;
		this.entityLimitBytes = 9_000_000;
		this.reportWrapper = 'reports';
		this.queuedAsString = false;
		this.reportsReversed = false;
		this.plainTextErrors = false;
		this.unavailableForOrders.clear();
		this.unavailableRetryAfter = undefined;
		this.notQueuedOrders.clear();
	}

	/** `response` as this injector has error answers sent. */
	errorForm(response: DoubleResponse): DoubleResponse {
		if (!this.plainTextErrors || response.errorMessage === undefined) return response;
		const headers = { ...response.headers, 'Content-Type': 'text/plain; charset=utf-8' };
		return { status: response.status, headers, body: response.errorMessage };
	}

	/** The fault for this request, if any, using one of its repetitions. */
	take(path: string): (StatusFault | DropFault) | undefined {
		const fault = this.faults.find((candidate) => candidate.match === undefined || path.includes(candidate.match));
		if (fault === undefined) return undefined;
		fault.remaining--;
		if (fault.remaining <= 0) this.faults.splice(this.faults.indexOf(fault), 1);
		return fault;
	}
}

export function faultResponse(fault: StatusFault): DoubleResponse {
	const response =
		fault.body === undefined
			? xmlError(fault.status, `Injected ${fault.status}`)
			: { status: fault.status, body: fault.body, headers: { 'Content-Type': fault.contentType ?? 'text/html' } };
	if (fault.retryAfter !== undefined) response.headers = { ...response.headers, 'Retry-After': fault.retryAfter };
	return response;
}
