/**
 * How to wait for each n8n process's store calls to end (a key's confirmation rounds go on after
 * its execution): this process's, registered by the harness that runs nodes, and each second
 * process's. Kept free of n8n's modules, which the setup of every test loads.
 */
export const storeCallsOfProcesses: Array<() => Promise<void>> = [];

/** Resolves once every process's store calls have ended: all of a key's confirmation rounds have gone. */
export async function storeCallsEnded(): Promise<void> {
	for (const idle of storeCallsOfProcesses) await idle();
}
