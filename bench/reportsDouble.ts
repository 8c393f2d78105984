import './env';

import type { DoubleRequest, DoubleResponse } from '../test/double/http';
import { ServiceDouble } from '../test/double/server';
import { requestStats, serveDouble } from './doubleProcess';

/**
 * The double for the report benchmarks, in its own process (see DoubleProcess), made cheap per
 * request so that it is not what the benchmark measures: the first request of a report and
 * filter renders all its pages once; every later page is answered from memory.
 */
async function main(): Promise<void> {
	const [blocks, latencyMs] = process.argv.slice(2).map(Number);
	const double = await ServiceDouble.start({ maxLifetimeMs: 60 * 60_000 });
	double.reports.generateBlocks(blocks, { start: '2024-05-01T00:00:00Z', stepMs: 1000 });
	double.faults.delayMs = latencyMs;
	preRenderPages(double);

	let answerBytes = 0;
	// A page is in flight from its arrival (where faults are taken, before the latency) to its answer.
	let inFlight = 0;
	let mostInFlight = 0;
	const isPage = (path: string) => path.startsWith('reports/blocks');
	const take = double.faults.take.bind(double.faults);
	double.faults.take = (path) => {
		if (isPage(path)) mostInFlight = Math.max(mostInFlight, ++inFlight);
		return take(path);
	};
	const send = double.reports.handle.bind(double.reports);
	double.reports.handle = (request) => {
		if (isPage(request.segments.join('/'))) inFlight--;
		const response = send(request);
		answerBytes += Buffer.byteLength(response?.body ?? '', 'utf8');
		return response;
	};
	serveDouble(double, {
		reset: () => {
			double.requests.length = 0;
			answerBytes = 0;
			mostInFlight = 0;
		},
		stats: () => ({ requests: requestStats(double.requestsTo('reports/blocks')), answerBytes, mostInFlight }),
	});
}

/** Answers from pages rendered once per report and filter (the query without `page_index`). */
function preRenderPages(double: ServiceDouble): void {
	const render = double.reports.handle.bind(double.reports);
	const rendered = new Map<string, DoubleResponse[]>();
	const pageRequest = (request: DoubleRequest, pageIndex: number): DoubleRequest => {
		const query = new URLSearchParams(request.query);
		query.set('page_index', String(pageIndex));
		return { ...request, query };
	};
	double.reports.handle = (request) => {
		const filter = new URLSearchParams(request.query);
		filter.delete('page_index');
		const key = `${request.segments.join('/')}?${filter.toString()}`;
		let pages = rendered.get(key);
		if (pages === undefined) {
			const first = render(pageRequest(request, 1));
			if (first?.status !== 200) return render(request);
			pages = [first];
			const count = Number(first.headers?.['X-Pages'] ?? 1);
			for (let pageIndex = 2; pageIndex <= count; pageIndex++) pages.push(render(pageRequest(request, pageIndex)) as DoubleResponse);
			rendered.set(key, pages);
		}
		return pages[Number(request.query.get('page_index') ?? 1) - 1] ?? render(request);
	};
}

void main();
