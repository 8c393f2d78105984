/**
 * How orders arrive at peak times, as issue 24 measured them: each scenario only says what the
 * shop delivers and when, and what the service refuses meanwhile; `runner.ts` delivers, waits
 * and judges. test:peak runs (a) to (d) in regular mode, test:queue (s), (a), (b) and (d) on two
 * workers.
 */
import { atOnce, type PlannedDelivery, type ShopOrder } from './delivery';

export interface Refusal {
	/** Orders the service answers with `queued: false`. */
	notQueued: string[];
	/** Requests of any order answered 503 once each, which the node's sender gets past. */
	transient503: number;
	/** Requests the service acts on and then loses the answer of (the connection dropped): their outcome unknown to the node. */
	answerLost?: number;
}

/** What a scenario can do while it runs. */
export interface ScenarioRun {
	/** Delivers the plan to the workflow under test; resolves when every POST has its answer. */
	deliver(plan: PlannedDelivery[]): Promise<void>;
	/** Waits until the execution of every delivery so far has ended. */
	settle(): Promise<void>;
	/** The service refuses as said from now on, until `heal`. */
	refuse(refusal: Refusal): void;
	heal(): void;
}

/** Why the strict example fails an execution on purpose: an order of unknown outcome, or one not queued or refused. */
export type PurposefulFailure = 'unknown' | 'notQueued';

export interface Scenario {
	letter: string;
	title: string;
	orders: number;
	drive(run: ScenarioRun, orders: ShopOrder[]): Promise<void>;
	/** Where the strict example must fail its executions on purpose: the orders (by position) of each of its failing nodes; no other order fails there. */
	failsOnPurpose?: Record<PurposefulFailure, number[]>;
}

/** The same pseudo-random numbers in every run (mulberry32), so runs differ only by timing. */
function seededRandom(seed: number): () => number {
	let state = seed;
	return () => {
		state = (state + 0x6d2b79f5) | 0;
		let value = Math.imul(state ^ (state >>> 15), 1 | state);
		value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
		return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
	};
}

/** Every order at once; once their executions ended, every order again. */
export async function atOnceTwice(run: ScenarioRun, orders: ShopOrder[]): Promise<void> {
	for (let pass = 0; pass < 2; pass++) {
		await run.deliver(atOnce(orders));
		await run.settle();
	}
}

export const distinctThenAgain: Scenario = {
	letter: 'a',
	title: '50 different orders at once, then each delivered again',
	orders: 50,
	drive: atOnceTwice,
};

export const twiceAtOnce: Scenario = {
	letter: 'b',
	title: '20 orders, each delivered twice at the same moment',
	orders: 20,
	async drive(run, orders) {
		await run.deliver(atOnce(orders.flatMap((order) => [order, order])));
		await run.settle();
	},
};

const STREAM_INTERVAL_MS = 50;

export const steadyStream: Scenario = {
	letter: 'c',
	title: '300 orders at 20 per second, every 10th delivered again 1 to 3 s later',
	orders: 300,
	async drive(run, orders) {
		const random = seededRandom(24);
		const plan = orders.map((order, index) => ({ atMs: index * STREAM_INTERVAL_MS, order }));
		const again = orders
			.filter((_, index) => index % 10 === 4)
			.map((order) => ({ atMs: orders.indexOf(order) * STREAM_INTERVAL_MS + 1_000 + random() * 2_000, order }));
		await run.deliver([...plan, ...again]);
		await run.settle();
	},
};

/**
 * A 503 is the account's: the node's sender pauses every request of the account and sends them
 * again, so the service is unavailable for a while here, not for some orders only.
 */
export const refusedThenHealthy: Scenario = {
	letter: 'd',
	title: '30 orders at once while the service does not queue 10 (queued: false) and answers its first 5 requests with 503, then all again with it healthy',
	orders: 30,
	async drive(run, orders) {
		const ids = orders.map((order) => order.id);
		run.refuse({
			notQueued: ids.filter((_, index) => index % 3 === 1),
			transient503: 5,
		});
		await run.deliver(atOnce(orders));
		await run.settle();
		run.heal();
		await run.deliver(atOnce(orders));
		await run.settle();
	},
};

/**
 * What the strict example routes apart: an order the service refuses, fixed and delivered again,
 * and one whose request the service queued before the connection dropped (its outcome unknown).
 */
export const refusedThenUnknown: Scenario = {
	letter: 'u',
	title: 'one order not queued; then one the service queues and whose answer is lost; then the first again with the service healthy',
	orders: 2,
	async drive(run, [refused, unknown]) {
		run.refuse({ notQueued: [refused.id], transient503: 0 });
		await run.deliver(atOnce([refused]));
		await run.settle();
		run.heal();
		run.refuse({ notQueued: [], transient503: 0, answerLost: 1 });
		await run.deliver(atOnce([unknown]));
		await run.settle();
		run.heal();
		await run.deliver(atOnce([refused]));
		await run.settle();
	},
	failsOnPurpose: { notQueued: [0], unknown: [1] },
};

/** What the Deduplication Key promises outright: a delivery after the first one's execution ended is not sent again. */
export const oneAfterTheOther: Scenario = {
	letter: 's',
	title: 'one order delivered twice, one delivery after the other',
	orders: 1,
	drive: atOnceTwice,
};

export const PEAK_SCENARIOS = [distinctThenAgain, twiceAtOnce, steadyStream, refusedThenHealthy];
