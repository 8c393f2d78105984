import './env';

import { processCpuMs } from './measure';
import type { DoubleStats } from './doubleProcess';
import { requestStats } from './doubleProcess';
import { ServiceDouble } from '../test/double/server';

/** The double for the transaction benchmarks, in its own process (see DoubleProcess). */
async function main(): Promise<void> {
	const double = await ServiceDouble.start({ maxLifetimeMs: 60 * 60_000 });
	double.transactions.keepTransactions = false;
	let cpuAtReset = processCpuMs();
	process.on('message', (command: 'reset' | 'stats') => {
		if (command === 'reset') {
			double.requests.length = 0;
			double.transactions.queued.length = 0;
			cpuAtReset = processCpuMs();
			process.send?.('reset');
			return;
		}
		const stats: DoubleStats = {
			requests: requestStats(double.requestsTo('transactions')),
			cpuMs: processCpuMs() - cpuAtReset,
			queuedOrderIds: double.transactions.queuedOrderIds().map(String),
		};
		process.send?.(stats);
	});
	process.on('disconnect', () => void double.close().then(() => process.exit(0)));
	process.send?.({ baseUrl: double.baseUrl, apiKey: double.apiKey });
}

void main();
