import './env';

import { createHash } from 'node:crypto';

import { ServiceDouble } from '../test/double/server';
import { requestStats, serveDouble } from './doubleProcess';

/**
 * The double for the rush bench, in its own process (see DoubleProcess). Arguments: the latency
 * of every answer in milliseconds, then `<id>=<name>` for each transaction type to add. Besides
 * the transactions double's figures it counts every POST it received, of any path, and the most
 * requests waiting for their answer at one moment, and a digest of every body.
 */
async function main(): Promise<void> {
	const [latency, ...types] = process.argv.slice(2);
	const double = await ServiceDouble.start({ maxLifetimeMs: 60 * 60_000 });
	double.transactions.keepTransactions = false;
	double.faults.delayMs = Number(latency);
	for (const type of types) {
		const [id, name] = type.split('=');
		double.transactions.types.set(Number(id), name);
	}

	// A request is in flight from its arrival (where faults are taken, before the latency) to its answer.
	let inFlight = 0;
	let mostInFlight = 0;
	const take = double.faults.take.bind(double.faults);
	double.faults.take = (path) => {
		mostInFlight = Math.max(mostInFlight, ++inFlight);
		return take(path);
	};
	// A digest of each body, so that two senders' requests can be compared byte for byte.
	const bodyDigests: string[] = [];
	const handle = double.transactions.handle.bind(double.transactions);
	double.transactions.handle = (request) => {
		inFlight--;
		bodyDigests.push(createHash('sha256').update(request.body).digest('base64'));
		return handle(request);
	};

	serveDouble(double, {
		reset: () => {
			double.requests.length = 0;
			double.transactions.queued.length = 0;
			inFlight = 0;
			mostInFlight = 0;
			bodyDigests.length = 0;
		},
		stats: () => ({
			requests: requestStats(double.requests),
			posts: double.requests.filter((request) => request.method === 'POST').length,
			mostInFlight,
			queuedOrderIds: double.transactions.queuedOrderIds().map(String),
			bodyDigests,
		}),
	});
}

void main();
