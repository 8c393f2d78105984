import type {
	IDataObject,
	IExecuteFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IPollFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import { parseXml } from './xml';

export const CREDENTIAL_TYPE = 'mailingPlatformApi';
export const XML_MEDIA_TYPE = 'application/vnd.service.api+xml';

export type ServiceContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

export type QueryValue = string | number | boolean | ReadonlyArray<string | number> | undefined;
export type QueryParameters = Readonly<Record<string, QueryValue>>;

/** What each status means for one operation, in the words of the spec's Errors table. */
export type ErrorDescriptions = Readonly<Partial<Record<number, string>>>;

export interface ServiceRequest {
	method: IHttpRequestMethods;
	/** Path segments below the base URL; each is encoded as exactly one segment. */
	path: ReadonlyArray<string | number>;
	query?: QueryParameters;
	/** A JSON body, already serialized, sent byte for byte. Without it the call is XML. */
	jsonBody?: string;
	/** Whether sending the request twice is harmless, so a broken connection may be retried. */
	repeatable: boolean;
	errorDescriptions?: ErrorDescriptions;
	/** Statuses the caller handles itself, returned instead of thrown. */
	passStatuses?: readonly number[];
	itemIndex?: number;
}

export interface ServiceResponse {
	statusCode: number;
	headers: Readonly<Record<string, string | undefined>>;
	body: string;
}

export const RETRY = {
	attempts: 5,
	baseDelayMs: 500,
	maxDelayMs: 30_000,
} as const;

const REQUEST_TIMEOUT_MS = 120_000;
const RETRIED_STATUSES = new Set([429, 503]);
/** Errors raised before a single byte reached the service: always safe to retry. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

const COMMON_ERROR_DESCRIPTIONS: ErrorDescriptions = {
	401: 'The API key was not accepted. Check the API key in the Mailing Platform API credential.',
	403: 'The API key is valid but lacks the rights for this call. Ask the account owner to grant them, or use another key.',
	429: `The service kept asking to slow down after ${RETRY.attempts} attempts. Run the workflow again later or with fewer items.`,
	500: `The service failed to answer (after ${RETRY.attempts} attempts where safe). Try again later.`,
	502: 'The service could not be reached through its gateway. Try again later.',
	503: `The service stayed unavailable after ${RETRY.attempts} attempts. Try again later.`,
	504: 'The service did not answer in time. Try again later.',
};

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

export interface Paging {
	pages?: number;
	items?: number;
	link?: string;
}

/** Reads `X-Pages`, `X-Items` and `Link` (Node lower-cases header names). */
export function readPaging(headers: ServiceResponse['headers']): Paging {
	const toCount = (value: string | undefined) => {
		const count = Number(value);
		return value !== undefined && value.trim() !== '' && Number.isInteger(count) && count >= 0 ? count : undefined;
	};
	return { pages: toCount(headers['x-pages']), items: toCount(headers['x-items']), link: headers.link };
}

/** Seconds or an HTTP date, as `Retry-After` may carry; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
	if (value === undefined || value.trim() === '') return undefined;
	if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
	const date = Date.parse(value);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with jitter; the service's own `Retry-After` wins, capped. */
export function retryDelayMs(retryNumber: number, retryAfter: string | undefined): number {
	const requested = parseRetryAfter(retryAfter);
	if (requested !== undefined) return Math.min(requested, RETRY.maxDelayMs);
	const ceiling = Math.min(RETRY.baseDelayMs * 2 ** retryNumber, RETRY.maxDelayMs);
	return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** The `<message>` of the service's `<error>` body, if the body is one. */
export function serviceErrorMessage(body: string): string | undefined {
	const parsed = parseXml(body);
	if (!parsed.ok) return undefined;
	const error = parsed.data.error as IDataObject | null | undefined;
	const message = typeof error === 'object' && error !== null ? error.message : undefined;
	return typeof message === 'string' && message !== '' ? message : undefined;
}

interface HttpResult {
	statusCode: number;
	statusMessage?: string;
	headers: Record<string, string | undefined>;
	body: unknown;
}

function networkErrorCode(error: unknown): string | undefined {
	const candidates = [error, (error as { cause?: unknown })?.cause];
	for (const candidate of candidates) {
		// n8n's request helper wraps network failures in a NodeApiError carrying the code as httpCode.
		for (const code of [(candidate as { code?: unknown })?.code, (candidate as { httpCode?: unknown })?.httpCode]) {
			if (typeof code === 'string' && /^E[A-Z_]+$/.test(code)) return code;
		}
	}
	return undefined;
}

function apiError(
	context: ServiceContext,
	details: { message: string; description?: string; httpCode?: number },
	itemIndex: number | undefined,
): NodeApiError {
	const httpCode = details.httpCode === undefined ? undefined : String(details.httpCode);
	return new NodeApiError(
		context.getNode(),
		{ message: details.message, description: details.description ?? '', httpCode: httpCode ?? '' } as JsonObject,
		{ message: details.message, description: details.description, httpCode, itemIndex },
	);
}

/**
 * The one way this package talks to the service. Retries 429/503 and connections refused;
 * retries a broken connection only where the request is repeatable, because a transaction
 * e-mail must never go out twice. Every other failure becomes a `NodeApiError` built from the
 * service's answer alone, so no request header (and no credential) can leak into it.
 */
export async function apiRequest(this: ServiceContext, request: ServiceRequest): Promise<ServiceResponse> {
	const { baseUrl } = await this.getCredentials<{ baseUrl: string }>(CREDENTIAL_TYPE);
	const options: IHttpRequestOptions = {
		method: request.method,
		url: buildUrl(baseUrl, request.path, request.query),
		headers:
			request.jsonBody === undefined
				? { Accept: `${XML_MEDIA_TYPE}; charset=utf-8` }
				: { Accept: 'application/json', 'Content-Type': 'application/json; charset=utf-8' },
		body: request.jsonBody,
		encoding: 'text',
		json: false,
		returnFullResponse: true,
		ignoreHttpStatusErrors: true,
		timeout: REQUEST_TIMEOUT_MS,
	};

	for (let attempt = 1; ; attempt++) {
		let result: HttpResult;
		try {
			result = (await this.helpers.httpRequestWithAuthentication.call(
				this,
				CREDENTIAL_TYPE,
				options,
			)) as HttpResult;
		} catch (error) {
			const code = networkErrorCode(error);
			if (code === undefined) {
				// Not a network failure: the credential refused to build the request, for example.
				throw apiError(this, { message: (error as Error).message }, request.itemIndex);
			}
			const notSent = NOT_SENT_CODES.has(code);
			if ((notSent || request.repeatable) && attempt < RETRY.attempts) {
				await sleep(retryDelayMs(attempt - 1, undefined));
				continue;
			}
			throw apiError(
				this,
				notSent || request.repeatable
					? {
							message: `The service could not be reached (${code})`,
							description: `Tried ${attempt} times. Check the Base URL in the credential and that the service is up.`,
						}
					: {
							message: `The connection broke after the request was sent (${code}); its outcome is unknown`,
							description:
								'The service may or may not have processed it. It was not sent again, to avoid doing it twice. Check in the platform before you run it again.',
						},
				request.itemIndex,
			);
		}

		const response: ServiceResponse = {
			statusCode: result.statusCode,
			headers: result.headers,
			body: typeof result.body === 'string' ? result.body : String(result.body ?? ''),
		};
		if (response.statusCode < 300 || request.passStatuses?.includes(response.statusCode)) {
			return response;
		}
		if (RETRIED_STATUSES.has(response.statusCode) && attempt < RETRY.attempts) {
			await sleep(retryDelayMs(attempt - 1, response.headers['retry-after']));
			continue;
		}
		throw apiError(
			this,
			{
				message:
					serviceErrorMessage(response.body) ??
					`The service answered ${response.statusCode}${result.statusMessage ? ` ${result.statusMessage}` : ''}`,
				description:
					request.errorDescriptions?.[response.statusCode] ??
					COMMON_ERROR_DESCRIPTIONS[response.statusCode],
				httpCode: response.statusCode,
			},
			request.itemIndex,
		);
	}
}

/** Calls the service and parses its XML answer; an empty body parses to `{}`. */
export async function xmlRequest(this: ServiceContext, request: ServiceRequest): Promise<{ data: IDataObject; response: ServiceResponse }> {
	const response = await apiRequest.call(this, request);
	if (response.body.trim() === '') return { data: {}, response };
	const parsed = parseXml(response.body);
	if (parsed.ok) return { data: parsed.data, response };
	throw apiError(
		this,
		{
			message: `The service's answer could not be read: ${parsed.problem}`,
			description: 'If this persists, report it with the workflow to the package maintainers.',
			httpCode: response.statusCode,
		},
		request.itemIndex,
	);
}
