/** Query parameters and paging of the report endpoints, as the spec defines them. */
import type { DoubleResponse } from '../http';
import { xmlResponse } from '../http';

const MAX_PAGE_SIZE = 1000;

/** A query the service answers with 400 and this message. */
export class BadRequest extends Error {}

export function integer(query: URLSearchParams, name: string, fallback: number | undefined, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
	const value = query.get(name);
	if (value === null) return fallback;
	if (!/^-?\d+$/.test(value) || Number(value) < min || Number(value) > max) {
		throw new BadRequest(`Invalid value '${value}' for ${name}: expected an integer from ${min} to ${max}.`);
	}
	return Number(value);
}

export function oneOf<T extends string>(query: URLSearchParams, name: string, allowed: readonly T[]): T | undefined {
	const value = query.get(name);
	if (value === null) return undefined;
	if (!allowed.includes(value as T)) throw new BadRequest(`Invalid value '${value}' for ${name}.`);
	return value as T;
}

export function booleanParameter(query: URLSearchParams, name: string, fallback: boolean): boolean {
	return oneOf(query, name, ['true', 'false'] as const) === undefined ? fallback : query.get(name) === 'true';
}

/**
 * One page of `records` (`page_index`, `page_size`), rendered, with the spec's X-Pages, X-Items
 * and Link headers; or what `injectedFault` answers for that page instead.
 */
export function pagedAnswer<T>(
	query: URLSearchParams,
	path: string,
	records: T[],
	render: (records: T[]) => string,
	injectedFault: (pageIndex: number) => DoubleResponse | undefined,
): DoubleResponse {
	const pageIndex = integer(query, 'page_index', 1, 1) as number;
	const pageSize = integer(query, 'page_size', 100, 1, MAX_PAGE_SIZE) as number;
	const fault = injectedFault(pageIndex);
	if (fault !== undefined) return fault;
	const pages = Math.ceil(records.length / pageSize);
	const link = (index: number, rel: string) => {
		const linkQuery = new URLSearchParams(query);
		linkQuery.set('page_index', String(index));
		linkQuery.set('page_size', String(pageSize));
		return `</1.0/${path}?${linkQuery.toString()}>; rel="${rel}"`;
	};
	const links = [link(1, 'first'), link(Math.max(pages, 1), 'last')];
	if (pageIndex < pages) links.push(link(pageIndex + 1, 'next'));
	if (pageIndex > 1) links.push(link(pageIndex - 1, 'prev'));
	const slice = records.slice((pageIndex - 1) * pageSize, pageIndex * pageSize);
	return xmlResponse(200, `<?xml version="1.0" encoding="UTF-8"?>\n${render(slice)}`, {
		'X-Pages': String(pages),
		'X-Items': String(records.length),
		Link: links.join(', '),
	});
}
