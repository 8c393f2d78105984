/**
 * Issue 42: keyed orders delivered one after the other across the two workers are sent once,
 * also on a loaded machine. Different orders at once, so that both workers take some; once every
 * execution ended, the same orders again at once. The second delivery of each order comes after
 * the first one's execution ended, so the key must skip it: nothing of this is the documented
 * limit (two workers handling the same order at the same moment). The loaded run starves the
 * workers of CPU, so that a worker confirming its keys gets few rounds into its window.
 */
import { startBackground } from '../../scripts/processes';
import { atOnceTwice, oneAfterTheOther, type Scenario } from '../peak/scenarios';

const ORDERS = 20;
const BUSY_LOOPS = 2;

/** Child processes spinning on the CPU while `work` runs; stopped when it ends or throws, and with the script as every tracked child. */
async function besideBusyLoops(work: () => Promise<void>): Promise<void> {
	const loops = Array.from({ length: BUSY_LOOPS }, () => startBackground(process.execPath, ['-e', 'for (;;) {}'], {}));
	try {
		await work();
	} finally {
		await Promise.all(loops.map((loop) => loop.stop()));
	}
}

export const sequentialAcrossWorkers: Scenario = {
	letter: 'q',
	title: `${ORDERS} different orders at once, then, once every execution ended, each again (issue 42)`,
	orders: ORDERS,
	drive: atOnceTwice,
};

export const sequentialOnLoadedMachine: Scenario = {
	letter: 'l',
	title: `(q) with ${BUSY_LOOPS} busy loops spinning on the CPU from before the first delivery until the second one's executions ended`,
	orders: ORDERS,
	drive: async (run, orders) => await besideBusyLoops(() => atOnceTwice(run, orders)),
};

/** Letters of the scenarios whose keyed orders, each delivered after the last one's execution ended, must be sent exactly once. */
export const SENT_ONCE_PROMISED = new Set([oneAfterTheOther, sequentialAcrossWorkers, sequentialOnLoadedMachine].map((scenario) => scenario.letter));
