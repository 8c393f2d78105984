import { setTimeout as sleep } from 'node:timers/promises';

/** How long a call waits for the other at most; enough for any in-process run, and no call hangs. */
const MAX_WAIT_MS = 1000;

function signal(): { fired: Promise<void>; fire: () => void } {
	let fire = () => {};
	const fired = new Promise<void>((resolve) => (fire = resolve));
	return { fired, fire };
}

const waitFor = async (fired: Promise<void>) => await Promise.race([fired, sleep(MAX_WAIT_MS)]);

/**
 * Two store calls that meet, as calls of two n8n processes can: each has read the row before
 * either writes it, and the first to read writes first.
 */
export class Meeting {
	private arrived = 0;

	private readonly bothRead = signal();

	private readonly firstWrote = signal();

	/** Called after a call read the row: its turn to write, or none once both have arrived. */
	arrive(): ((write: () => Promise<void>) => Promise<void>) | undefined {
		this.arrived++;
		if (this.arrived === 1) return async (write) => await this.inTurn(this.bothRead.fired, write, this.firstWrote.fire);
		if (this.arrived > 2) return undefined;
		this.bothRead.fire();
		return async (write) => await this.inTurn(this.firstWrote.fired, write, () => {});
	}

	/** Whether both calls have arrived. */
	get complete(): boolean {
		return this.arrived >= 2;
	}

	private async inTurn(after: Promise<void>, write: () => Promise<void>, done: () => void): Promise<void> {
		await waitFor(after);
		try {
			await write();
		} finally {
			done();
		}
	}
}
