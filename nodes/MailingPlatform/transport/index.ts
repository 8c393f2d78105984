import type { ICredentialsDecrypted, IDataObject, IHttpRequestMethods, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { CREDENTIAL_TYPE, XML_ACCEPT } from '../../../credentials/MailingPlatformApi.credentials';
import type { ErrorDescriptions, ServiceContext, ServiceErrorDetails } from './errors';
import { COMMON_ERROR_DESCRIPTIONS, serviceError } from './errors';
import type { AccountGate } from './accountGate';
import { gateOf, monotonicMs } from './accountGate';
import { asksToSlowDown, attemptsMade, isRetriedStatus, leavesOutcomeOpen, neverSent, RETRY, retryDelayMs, saysNotTaken } from './retry';
import { errorAnswerMessage } from './serviceText';
import { parseXml } from './xml';

export type { ErrorDescriptions, ServiceContext } from './errors';

type QueryValue = string | number | boolean | ReadonlyArray<string | number> | undefined;
export type QueryParameters = Readonly<Record<string, QueryValue>>;

interface ServiceRequest {
	method: IHttpRequestMethods;
	/** Path segments below the base URL; each is encoded as exactly one segment. */
	path: ReadonlyArray<string | number>;
	query?: QueryParameters;
	/** A JSON body, already serialized and encoded, sent byte for byte. Without it the call is XML. */
	jsonBody?: Buffer;
	/** Whether sending the request twice is harmless (a read), so any transient failure may be retried. */
	repeatable: boolean;
	errorDescriptions?: ErrorDescriptions;
	itemIndex?: number;
	/** Which part of a longer read this request is, named in its errors, e.g. `page 3 of 7`. */
	part?: string;
	/**
	 * Made by the account's sender (actions/transaction/accountSender.ts), which has taken the
	 * request's start at the account's gate and decides itself what goes again: one attempt, the
	 * sender's `earlierAttempts` counted in "Attempts made". Stopping an execution never aborts it:
	 * the sender keeps back what was stopped before it left, and once its bytes may have left,
	 * only the answer tells whether the service queued the transactions.
	 */
	sender?: { earlierAttempts: number };
}

export interface ServiceResponse {
	statusCode: number;
	headers: Readonly<Record<string, string | undefined>>;
	body: string;
}

const REQUEST_TIMEOUT_MS = 120_000;

/** `{base_url}` plus path segments, each encoded as one segment, plus the query. */
export function buildUrl(
	baseUrl: string,
	path: ReadonlyArray<string | number>,
	query: QueryParameters = {},
): string {
	const segments = path.map((segment) => encodeURIComponent(String(segment)));
	const url = `${baseUrl.replace(/\/+$/, '')}/${segments.join('/')}`;
	const search = buildQueryString(query);
	return search === '' ? url : `${url}?${search}`;
}

/** Encodes multi-valued parameters as repeated keys (`emails=a&emails=b`), as the API expects. */
export function buildQueryString(query: QueryParameters): string {
	const search = new URLSearchParams();
	for (const [name, value] of Object.entries(query)) {
		if (value === undefined) continue;
		const values = Array.isArray(value) ? value : [value];
		for (const single of values) search.append(name, String(single));
	}
	return search.toString();
}

/**
 * The page count of a paged answer (`X-Pages`; Node lower-cases header names), when readable.
 * `X-Items` and `Link` are not needed: pages are asked for by number, and a `Link` URL is never followed.
 */
export function readPageCount(headers: ServiceResponse['headers']): number | undefined {
	const value = headers['x-pages'];
	const count = Number(value);
	return value !== undefined && value.trim() !== '' && Number.isInteger(count) && count >= 0 ? count : undefined;
}

interface HttpResult {
	statusCode: number;
	statusMessage?: string;
	headers: Record<string, string | undefined>;
	body: unknown;
}

/** The system error code of a failed connection; n8n-core's wrapper keeps it in `httpCode`. */
function networkErrorCode(error: unknown): string | undefined {
	const wrapped = error as { code?: unknown; httpCode?: unknown; cause?: { code?: unknown } };
	for (const code of [wrapped?.httpCode, wrapped?.code, wrapped?.cause?.code]) {
		if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
	}
	return undefined;
}

/** The credential of each node run (or poll), decrypted once for all its requests and readers. */
const credentials = new WeakMap<ServiceContext, Promise<ICredentialsDecrypted>>();

export function credentialOf(context: ServiceContext): Promise<ICredentialsDecrypted> {
	let credential = credentials.get(context);
	if (credential === undefined) {
		credential = context.getCredentials(CREDENTIAL_TYPE).then((data) => ({ id: '', name: CREDENTIAL_TYPE, type: CREDENTIAL_TYPE, data }));
		credentials.set(context, credential);
	}
	return credential;
}

/**
 * n8n-core ties a helper's request to the execution's cancel signal when the calling context has
 * `getExecutionCancelSignal`; the sender's requests are made through a view of the context without it.
 */
function detachedFromCancel(context: ServiceContext): ServiceContext {
	return new Proxy(context, { has: (target, key) => key !== 'getExecutionCancelSignal' && Reflect.has(target, key) });
}

/** How messages name a request: `GET reports/blocks`. */
export function describeRequest(request: Pick<ServiceRequest, 'method' | 'path'>): string {
	return `${request.method} ${request.path.join('/')}`;
}

/**
 * The one way this package talks to the service. Every request waits for its turn at the
 * account's gate (the budget of the account in this process), every answer teaches the gate the
 * account's pace, and a 429 or 503 pauses the whole account. Idempotent (`repeatable`) requests
 * are retried on 429, 500, 502, 503, 504 and network errors; the others only where the service
 * cannot have acted on them (429, 503, no connection), because a transaction e-mail must never go
 * out twice. Every other failure becomes a `NodeApiError` that states the attempts made.
 */
export async function apiRequest(this: ServiceContext, request: ServiceRequest): Promise<ServiceResponse> {
	const credential = await credentialOf(this);
	const gate = gateOf(credential.data);
	const leave = gate.enter(credential.data);
	try {
		return await sendWithRetries.call(this, request, credential, gate);
	} finally {
		leave();
	}
}

async function sendWithRetries(this: ServiceContext, request: ServiceRequest, credential: ICredentialsDecrypted, gate: AccountGate): Promise<ServiceResponse> {
	const maxAttempts = request.sender === undefined ? RETRY.attempts : 1;
	const earlier = request.sender?.earlierAttempts ?? 0;
	const caller = request.sender === undefined ? this : detachedFromCancel(this);
	const baseUrl = String(credential.data?.baseUrl ?? '');
	const options: IHttpRequestOptions = {
		method: request.method,
		url: buildUrl(baseUrl, request.path, request.query),
		headers:
			request.jsonBody === undefined
				? { Accept: XML_ACCEPT }
				: { Accept: 'application/json', 'Content-Type': 'application/json; charset=utf-8' },
		// A Buffer goes out untouched; axios would JSON.parse a string body to validate it.
		body: request.jsonBody,
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: REQUEST_TIMEOUT_MS,
	};
	const fail = (details: ServiceErrorDetails, made: number) =>
		serviceError(
			this,
			{
				...details,
				message: request.part === undefined ? details.message : `${details.message} (${request.part})`,
				description: [details.description, attemptsMade(earlier + made)].filter(Boolean).join(' '),
			},
			request.itemIndex,
		);

	for (let attempt = 1; ; attempt++) {
		if (request.sender === undefined) await gate.turn();
		const sentAtMs = monotonicMs();
		let result: HttpResult;
		try {
			result = (await caller.helpers.httpRequestWithAuthentication.call(caller, CREDENTIAL_TYPE, options, {
				credentialsDecrypted: credential,
			})) as HttpResult;
		} catch (error) {
			const code = networkErrorCode(error);
			if (code === undefined) {
				// Not a network failure: the credential refused to build the request, for example.
				throw fail({ message: (error as Error).message }, attempt);
			}
			const notSent = neverSent(code);
			const safe = notSent || request.repeatable;
			if (safe && attempt < maxAttempts) {
				await sleep(retryDelayMs(attempt - 1, undefined));
				continue;
			}
			throw fail(
				safe
					? {
							message: 'The service could not be reached',
							description: `${code}. Check the Base URL in the credential and that the service is up.`,
							notProcessed: notSent,
						}
					: {
							message: 'The connection broke after the request was sent; its outcome is unknown',
							description: `${code}. The service may or may not have processed it. It was not sent again, to avoid doing it twice. Check in the platform before you run it again.`,
							outcomeUnknown: true,
						},
				attempt,
			);
		}

		const response: ServiceResponse = {
			statusCode: result.statusCode,
			headers: result.headers,
			body: typeof result.body === 'string' ? result.body : String(result.body ?? ''),
		};
		const status = response.statusCode;
		// Every answer, taken or refused, teaches the account's gate; a fault in learning (headers it
		// cannot read) costs only the lesson, never the answer, which alone says what the service did.
		try {
			gate.answered(sentAtMs, status, response.headers);
		} catch {
			// The pace stays as it was.
		}
		if (status < 300) return response;
		const delayMs = retryDelayMs(earlier + attempt - 1, response.headers['retry-after']);
		if (asksToSlowDown(status)) gate.pause(delayMs, `the service answered ${status} (${status === 429 ? 'too many requests' : 'unavailable'})`);
		if (isRetriedStatus(status, request.repeatable) && attempt < maxAttempts) {
			// After a 429 or 503 the gate's pause is the wait, for every request of the account.
			if (!asksToSlowDown(status)) await sleep(delayMs);
			continue;
		}
		const answered = errorAnswerMessage(response.body, status, result.statusMessage);
		if (!request.repeatable && leavesOutcomeOpen(status)) {
			throw fail(
				{
					message: `${answered}; the request's outcome is unknown`,
					description: `The service answered ${status} after receiving the request, so it may or may not have processed it. It was not sent again, to avoid doing it twice. Check in the platform before you run it again.`,
					httpCode: status,
					outcomeUnknown: true,
				},
				attempt,
			);
		}
		throw fail(
			{
				message: answered,
				description: request.errorDescriptions?.[status] ?? COMMON_ERROR_DESCRIPTIONS[status],
				httpCode: status,
				notProcessed: saysNotTaken(status),
			},
			attempt,
		);
	}
}

/** Calls the service and parses its XML answer; an empty body parses to `{}`. */
export async function xmlRequest(this: ServiceContext, request: ServiceRequest): Promise<{ data: IDataObject; response: ServiceResponse }> {
	const response = await apiRequest.call(this, request);
	return { data: parseXml(this, response, { name: describeRequest(request), part: request.part, itemIndex: request.itemIndex }), response };
}
