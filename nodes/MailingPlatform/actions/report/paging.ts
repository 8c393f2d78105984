import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { parameter } from '../../helpers/parameters';

/** Return All / Limit, as on every n8n node that lists records. */
export function pagingProperties(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

/** Every record of a paged report, or up to the item's Limit, in the service's order. */
export async function fetchReport(
	this: IExecuteFunctions,
	itemIndex: number,
	fetchPage: PageFetcher<IDataObject>,
): Promise<IDataObject[]> {
	const returnAll = parameter(this, 'returnAll', itemIndex, false);
	const limit = returnAll ? undefined : parameter(this, 'limit', itemIndex, 50);
	return await fetchAllPages(fetchPage, { limit });
}

/** The largest `page_size` the service accepts. */
const MAX_PAGE_SIZE = 1000;

/**
 * Pages fetched at the same time once the first told how many: enough to hide the service's
 * latency (docs/benchmarks.md), few enough not to load it.
 */
const PAGE_CONCURRENCY = 4;

interface Page<T> {
	records: T[];
	/** How many pages the service says there are (`X-Pages`), when it says so. */
	pageCount?: number;
	/** The body as received, to notice a service that keeps answering the same page. */
	body: string;
}

interface PagingOptions {
	/** Stop once this many records are collected; undefined for all. */
	limit?: number;
}

/** One page; `pageCount` is known once the first page told it, and goes into the page's errors. */
export type PageFetcher<T> = (pageIndex: number, pageSize: number, pageCount?: number) => Promise<Page<T>>;

/**
 * Pages 2..lastPage, at most PAGE_CONCURRENCY at a time, in page order. Stops at
 * an empty page or one that repeats page 1 (a service ignoring `page_index`), so a wrong
 * `X-Pages` can neither loop for ever nor produce duplicates. Only records are kept, not bodies.
 */
async function fetchConcurrently<T>(
	fetchPage: (pageIndex: number) => Promise<Page<T>>,
	lastPage: number,
	firstBody: string,
): Promise<T[][]> {
	const recordsByPage = new Map<number, T[]>();
	const failures = new Map<number, unknown>();
	let end = lastPage;
	let next = 2;
	const worker = async () => {
		while (failures.size === 0 && next <= end) {
			const pageIndex = next++;
			try {
				const page = await fetchPage(pageIndex);
				if (page.records.length === 0 || page.body === firstBody) end = Math.min(end, pageIndex - 1);
				else recordsByPage.set(pageIndex, page.records);
			} catch (error) {
				failures.set(pageIndex, error);
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(0, Math.min(PAGE_CONCURRENCY, lastPage - 1)) }, worker));
	const ordered: T[][] = [];
	for (let pageIndex = 2; pageIndex <= end; pageIndex++) {
		if (failures.has(pageIndex)) throw failures.get(pageIndex);
		const pageRecords = recordsByPage.get(pageIndex);
		// Not fetched because another page failed first: that failure is the one to report.
		if (pageRecords === undefined) throw [...failures.values()][0];
		ordered.push(pageRecords);
	}
	return ordered;
}

/**
 * Collects the records of a paged report. The first page tells how many pages there are
 * (`X-Pages`); the others are then fetched a few at a time and kept in page order. Without
 * `X-Pages` the pages are read one by one until one is empty, short, or the same as the last.
 * A limit shrinks `page_size` to what is needed and stops early. A failing page fails the
 * whole call: partial output would look complete.
 */
export async function fetchAllPages<T>(fetchPage: PageFetcher<T>, options: PagingOptions = {}): Promise<T[]> {
	const { limit } = options;
	const pageSize = limit === undefined ? MAX_PAGE_SIZE : Math.max(1, Math.min(limit, MAX_PAGE_SIZE));
	const wanted = limit ?? Number.POSITIVE_INFINITY;

	const first = await fetchPage(1, pageSize);
	const records = [...first.records];
	if (records.length >= wanted || first.records.length === 0) return records.slice(0, wanted);

	const pages = first.pageCount;
	if (pages !== undefined) {
		const laterPages = await fetchConcurrently(
			async (pageIndex) => await fetchPage(pageIndex, pageSize, pages),
			Math.min(pages, Math.ceil(wanted / pageSize)),
			first.body,
		);
		for (const pageRecords of laterPages) records.push(...pageRecords);
		return records.slice(0, wanted);
	}

	let previous = first;
	for (let pageIndex = 2; records.length < wanted && previous.records.length >= pageSize; pageIndex++) {
		const page = await fetchPage(pageIndex, pageSize);
		if (page.records.length === 0 || page.body === previous.body) break;
		records.push(...page.records);
		previous = page;
	}
	return records.slice(0, wanted);
}
