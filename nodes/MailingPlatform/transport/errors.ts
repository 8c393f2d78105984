import type { IExecuteFunctions, ILoadOptionsFunctions, IPollFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

export type ServiceContext = IExecuteFunctions | IPollFunctions | ILoadOptionsFunctions;

/** What each status means for one operation, in the words of the spec's Errors table. */
export type ErrorDescriptions = Readonly<Partial<Record<number, string>>>;

export const COMMON_ERROR_DESCRIPTIONS: ErrorDescriptions = {
	401: 'The API key was not accepted. Check the API key in the Mailing Platform API credential.',
	403: 'The API key is valid but lacks the rights for this call. Ask the account owner to grant them, or use another key.',
	429: 'The service kept asking to slow down. Run the workflow again later or with fewer items.',
	500: 'The service failed to answer. Try again later.',
	502: 'The service could not be reached through its gateway. Try again later.',
	503: 'The service stayed unavailable. Try again later.',
	504: 'The service did not answer in time. Try again later.',
};

export interface ServiceErrorDetails {
	message: string;
	description?: string;
	httpCode?: number | string;
	/** The service received the request and may have acted on it; its answer is unknown or unreadable. */
	outcomeUnknown?: boolean;
	/** The service certainly did not act on the request: it never got it, or said it did not take it. */
	notProcessed?: boolean;
}

/**
 * This package's `NodeApiError`: says whether the service may have acted on the request, since
 * only a request it certainly did not act on may be sent again.
 */
export class ServiceError extends NodeApiError {
	outcomeUnknown = false;

	notProcessed = false;
}

/**
 * Whether the service may have acted on the request that failed with `error`: only a failure it
 * certainly did not act on (it never got the request, or said it did not take it) or refused
 * with a 4xx answer did nothing. Any other failure counts, e.g. a request the credential refused
 * to build, since doing a thing twice is the one mistake not undone.
 */
export function mayHaveActed(error: unknown): boolean {
	return decidedForGood(error) && !/^4\d\d$/.test(String((error as ServiceError).httpCode ?? ''));
}

/**
 * Whether a request that failed with `error` is decided for good: the service answered it (a
 * refusal it would give again) or may have acted on it. Only what it certainly never took (no
 * connection, 429, 503) is worth trying again, as n8n's Retry On Fail does.
 */
export function decidedForGood(error: unknown): boolean {
	return error instanceof ServiceError && !error.notProcessed;
}

/**
 * The one builder of this package's `NodeApiError`: from the service's answer and our own
 * words only, so no request header (and no credential) can leak into it.
 */
export function serviceError(context: ServiceContext, details: ServiceErrorDetails, itemIndex?: number): ServiceError {
	const httpCode = details.httpCode === undefined ? undefined : String(details.httpCode);
	const error = new ServiceError(
		context.getNode(),
		{ message: details.message, description: details.description ?? '', httpCode: httpCode ?? '' } as JsonObject,
		{ message: details.message, description: details.description, httpCode, itemIndex },
	);
	// NodeApiError swaps messages naming a network code for a generic "retry" text; ours are
	// precise about what happened and whether it is safe to retry, so they stay.
	error.message = details.message;
	error.outcomeUnknown = details.outcomeUnknown === true;
	error.notProcessed = details.notProcessed === true;
	return error;
}
