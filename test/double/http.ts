import type { IncomingMessage, ServerResponse } from 'node:http';

import { errorDocument } from './xml';

export const XML_MEDIA_TYPE = 'application/vnd.service.api+xml';

/** One request as a route sees it: path below the version prefix, split and decoded. */
export interface DoubleRequest {
	method: string;
	segments: string[];
	query: URLSearchParams;
	headers: IncomingMessage['headers'];
	body: Buffer;
	/** Set by the transactions area: the order id of each transaction a POST carried. */
	orders?: Array<string | undefined>;
}

export interface DoubleResponse {
	status: number;
	headers?: Record<string, string>;
	body?: string;
	/** The message of an error answer, so the fault injector can send it in another form. */
	errorMessage?: string;
}

export function xmlResponse(status: number, body: string, headers: Record<string, string> = {}): DoubleResponse {
	return { status, body, headers: { 'Content-Type': `${XML_MEDIA_TYPE}; charset=utf-8`, ...headers } };
}

export function xmlError(status: number, message: string): DoubleResponse {
	return { ...xmlResponse(status, errorDocument(message)), errorMessage: message };
}

export function jsonResponse(status: number, value: unknown): DoubleResponse {
	return { status, body: JSON.stringify(value), headers: { 'Content-Type': 'application/json; charset=utf-8' } };
}

export function send(res: ServerResponse, response: DoubleResponse): void {
	res.writeHead(response.status, response.headers);
	res.end(response.body);
}

/** Reads the whole body, keeping none of it past the limit: answering before the client has
 * sent everything would break its connection instead of giving it a clean 413. */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer | 'tooLarge'> {
	const chunks: Buffer[] = [];
	let size = 0;
	for await (const chunk of req) {
		size += (chunk as Buffer).length;
		if (size <= limitBytes) chunks.push(chunk as Buffer);
	}
	return size > limitBytes ? 'tooLarge' : Buffer.concat(chunks);
}
