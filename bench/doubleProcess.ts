import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

import type { RecordedRequest, ServiceDouble } from '../test/double/server';
import type { CredentialValues } from '../test/harness/workflow';
import { processCpuMs } from './measure';

/** What a double's process answers to `reset` and `stats`: counted since the last reset. */
export interface DoubleStats {
	/** Requests to the measured path (every request, rush double), in arrival order; `path` below the version prefix, with the query. */
	requests: Array<{ path: string; bodyBytes: number; status: number }>;
	/** Bytes of the answers' bodies to those requests (reports double only). */
	answerBytes?: number;
	/** The most pages (reports double) or requests (rush double) waiting for their answer at one moment. */
	mostInFlight?: number;
	/** POST requests of any path (rush double only). */
	posts?: number;
	/** CPU time of the double's whole process. */
	cpuMs: number;
	/** Order IDs of the queued transactions (transactions double only). */
	queuedOrderIds?: string[];
	/** SHA-256 of each request body to POST transactions, in arrival order (transactions double only). */
	bodyDigests?: string[];
}

export function requestStats(requests: RecordedRequest[]): DoubleStats['requests'] {
	return requests.map(({ rawPath, query, bodyBytes, status }) => ({ path: `${rawPath}?${new URLSearchParams(query).toString()}`, bodyBytes, status }));
}

/**
 * The child's side of `DoubleProcess`: sends the double's credentials, answers `reset` (after
 * `reset()`) and `stats` (`stats()` plus the process's CPU time since the last reset), and
 * closes the double when the parent disconnects.
 */
export function serveDouble(double: ServiceDouble, area: { reset: () => void; stats: () => Omit<DoubleStats, 'cpuMs'> }): void {
	let cpuAtReset = processCpuMs();
	process.on('message', (command: 'reset' | 'stats') => {
		if (command === 'reset') {
			area.reset();
			cpuAtReset = processCpuMs();
			process.send?.('reset');
			return;
		}
		const stats: DoubleStats = { ...area.stats(), cpuMs: processCpuMs() - cpuAtReset };
		process.send?.(stats);
	});
	process.on('disconnect', () => void double.close().then(() => process.exit(0)));
	process.send?.({ baseUrl: double.baseUrl, apiKey: double.apiKey });
}

/**
 * A double of the service in its own process, so that serving requests neither competes with
 * the node for its thread nor counts in its CPU time or memory. Talks over IPC.
 */
export class DoubleProcess {
	private constructor(
		private readonly child: ChildProcess,
		readonly credentials: CredentialValues,
	) {}

	/** Starts `bench/<script>.js` with `args`; it sends its credentials once it listens. */
	static async start(script: string, args: string[] = []): Promise<DoubleProcess> {
		const child = fork(join(__dirname, `${script}.js`), args, { execArgv: [], stdio: 'inherit' });
		const credentials = await new Promise<CredentialValues>((resolve, reject) => {
			child.once('message', (message) => resolve(message as CredentialValues));
			child.once('exit', (code) => reject(new Error(`the double ${script} exited with ${code}`)));
		});
		return new DoubleProcess(child, credentials);
	}

	async reset(): Promise<void> {
		await this.ask('reset');
	}

	async stats(): Promise<DoubleStats> {
		return (await this.ask('stats')) as DoubleStats;
	}

	stop(): void {
		this.child.disconnect();
	}

	private async ask(command: 'reset' | 'stats'): Promise<unknown> {
		const answer = new Promise((resolve) => this.child.once('message', resolve));
		this.child.send(command);
		return await answer;
	}
}
