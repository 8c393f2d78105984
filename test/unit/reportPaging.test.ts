import type { PageFetcher } from '../../nodes/MailingPlatform/actions/report/paging';
import { fetchAllPages } from '../../nodes/MailingPlatform/actions/report/paging';

/** A paged source of numbers 1..total, answering like the service (or worse, per options). */
function source(total: number, options: { pagesHeader?: boolean; ignorePageIndex?: boolean } = {}) {
	const asked: Array<[number, number]> = [];
	const fetchPage: PageFetcher<number> = async (pageIndex, pageSize) => {
		asked.push([pageIndex, pageSize]);
		const index = options.ignorePageIndex ? 1 : pageIndex;
		const records = Array.from({ length: total }, (_, i) => i + 1).slice((index - 1) * pageSize, index * pageSize);
		const pages = options.pagesHeader === false ? undefined : Math.ceil(total / pageSize);
		return { records, pageCount: pages, body: JSON.stringify(records) };
	};
	return { asked, fetchPage };
}

describe('fetchAllPages', () => {
	it('reads every page of 1,000 in order when all are asked for', async () => {
		const { asked, fetchPage } = source(3500);
		const records = await fetchAllPages(fetchPage);
		expect(records).toEqual(Array.from({ length: 3500 }, (_, i) => i + 1));
		expect(asked.map(([page]) => page).sort()).toEqual([1, 2, 3, 4]);
		expect(new Set(asked.map(([, size]) => size))).toEqual(new Set([1000]));
	});

	it('asks only for what a limit needs', async () => {
		const { asked, fetchPage } = source(5000);
		expect(await fetchAllPages(fetchPage, { limit: 2500 })).toHaveLength(2500);
		expect(asked).toEqual(expect.arrayContaining([[1, 1000], [2, 1000], [3, 1000]]));
		expect(asked).toHaveLength(3);
	});

	it('without X-Pages reads on until a short page', async () => {
		const { asked, fetchPage } = source(2000, { pagesHeader: false });
		expect(await fetchAllPages(fetchPage)).toHaveLength(2000);
		expect(asked.map(([page]) => page)).toEqual([1, 2, 3]);
	});

	it('stops when a service without X-Pages answers the same page again', async () => {
		const { asked, fetchPage } = source(5000, { pagesHeader: false, ignorePageIndex: true });
		expect(await fetchAllPages(fetchPage)).toHaveLength(1000);
		expect(asked).toHaveLength(2);
	});

	it('stops at an empty page even when X-Pages promised more', async () => {
		const fetchPage: PageFetcher<number> = async (pageIndex) => ({
			records: pageIndex === 1 ? Array.from({ length: 1000 }, (_, i) => i) : [],
			pageCount: 50,
			body: '',
		});
		expect(await fetchAllPages(fetchPage)).toHaveLength(1000);
	});

	it('stops when a service claiming a billion pages answers page 1 again', async () => {
		const { asked, fetchPage } = source(5000, { ignorePageIndex: true });
		const claimingBillion = async (pageIndex: number, pageSize: number) => ({
			...(await fetchPage(pageIndex, pageSize)),
			pageCount: 1_000_000_000,
		});
		expect(await fetchAllPages(claimingBillion)).toHaveLength(1000);
		expect(asked.length).toBeLessThanOrEqual(5);
	});

	it('fails with the failure of the first page that failed, and tells each later page how many there are, for its errors', async () => {
		const counts: Array<number | undefined> = [];
		const fetchPage: PageFetcher<number> = async (pageIndex, _pageSize, pageCount) => {
			counts[pageIndex] = pageCount;
			if (pageIndex >= 3) throw new Error(`page ${pageIndex} failed`);
			return { records: Array.from({ length: 1000 }, (_, i) => i), pageCount: 5, body: `page ${pageIndex}` };
		};
		await expect(fetchAllPages(fetchPage)).rejects.toThrow('page 3 failed');
		expect(counts.slice(1, 3)).toEqual([undefined, 5]);
	});
});
