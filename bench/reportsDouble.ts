import './env';

import { ServiceDouble } from '../test/double/server';

/**
 * The double in its own process for the reports benchmark, so that serving pages does not
 * compete with the node for the same thread. Talks to the parent over IPC.
 */
type Command = { kind: 'requests'; prefix: string } | { kind: 'reset' };

async function main(): Promise<void> {
	const [blocks, latencyMs] = process.argv.slice(2).map(Number);
	const double = await ServiceDouble.start();
	double.reports.generateBlocks(blocks, { start: '2024-05-01T00:00:00Z', stepMs: 1000 });
	double.faults.delayMs = latencyMs;
	process.on('message', (command: Command) => {
		if (command.kind === 'reset') double.requests.length = 0;
		process.send?.({ requests: double.requestsTo(command.kind === 'requests' ? command.prefix : '').length });
	});
	process.on('disconnect', () => void double.close().then(() => process.exit(0)));
	process.send?.({ baseUrl: double.baseUrl, apiKey: double.apiKey });
}

void main();
