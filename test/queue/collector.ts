import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CollectedBlock {
	executionId: string;
	block: { email?: string; timestamp?: string; [key: string]: unknown };
	/** When the collector received it (epoch milliseconds). */
	atMs: number;
}

/**
 * Receives what the trigger workflow's HTTP Request node posts: one block with the id of the
 * execution that emitted it. Listens on 127.0.0.1 (OS-picked port) and stops with the run.
 */
export async function startCollector() {
	const received: CollectedBlock[] = [];
	const server = createServer((request, response) => {
		let body = '';
		request.on('data', (chunk: Buffer) => (body += chunk.toString()));
		request.on('end', () => {
			try {
				const { executionId, block } = JSON.parse(body) as Omit<CollectedBlock, 'atMs'>;
				received.push({ executionId: String(executionId), block, atMs: Date.now() });
				response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
			} catch {
				response.writeHead(400).end();
			}
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}/blocks`,
		received,
		close: () =>
			new Promise<void>((resolve) => {
				server.close(() => resolve());
				server.closeAllConnections();
			}),
	};
}

export type Collector = Awaited<ReturnType<typeof startCollector>>;
