import './env';

import { createHash } from 'node:crypto';

import { requestStats, serveDouble } from './doubleProcess';
import { ServiceDouble } from '../test/double/server';

/**
 * The double for the transaction benchmarks, in its own process (see DoubleProcess). Arguments:
 * `<id>=<name>` adds a transaction type; `digests` keeps a digest of each body.
 */
async function main(): Promise<void> {
	const double = await ServiceDouble.start({ maxLifetimeMs: 60 * 60_000 });
	double.transactions.keepTransactions = false;
	const args = process.argv.slice(2);
	for (const type of args.filter((arg) => arg.includes('='))) {
		const [id, name] = type.split('=');
		double.transactions.types.set(Number(id), name);
	}
	// So that two senders' requests can be compared byte for byte.
	const bodyDigests: string[] = [];
	if (args.includes('digests')) {
		const handle = double.transactions.handle.bind(double.transactions);
		double.transactions.handle = (request) => {
			if (request.segments[0] === 'transactions') bodyDigests.push(createHash('sha256').update(request.body).digest('base64'));
			return handle(request);
		};
	}
	serveDouble(double, {
		reset: () => {
			double.requests.length = 0;
			double.transactions.queued.length = 0;
			bodyDigests.length = 0;
		},
		stats: () => ({
			requests: requestStats(double.requestsTo('transactions')),
			queuedOrderIds: double.transactions.queuedOrderIds().map(String),
			bodyDigests,
		}),
	});
}

void main();
