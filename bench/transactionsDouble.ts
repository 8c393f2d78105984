import './env';

import { requestStats, serveDouble } from './doubleProcess';
import { ServiceDouble } from '../test/double/server';

/** The double for the transaction benchmarks, in its own process (see DoubleProcess). */
async function main(): Promise<void> {
	const double = await ServiceDouble.start({ maxLifetimeMs: 60 * 60_000 });
	double.transactions.keepTransactions = false;
	serveDouble(double, {
		reset: () => {
			double.requests.length = 0;
			double.transactions.queued.length = 0;
		},
		stats: () => ({
			requests: requestStats(double.requestsTo('transactions')),
			queuedOrderIds: double.transactions.queuedOrderIds().map(String),
		}),
	});
}

void main();
