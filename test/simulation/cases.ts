/**
 * The cases the simulation draws: deliveries of a few orders (the same order again, during and
 * after), a bulk now and then (up to a few hundred orders), keyed and not, with the options that
 * change sending, on one to ten processes; the service's answers as users meet them, a gateway's
 * included; n8n's store failing or slow at any call; methods of the sender's own code that fail;
 * stops, n8n's workflow timeout, and n8n killed and started again. Small numbers where a race needs only two or three actors,
 * and shrinking reads best short.
 */
import fc from 'fast-check';

import type { Answer, Delivery, Kill, RedisRecipe, RetryAfter, SimulationCase } from './model';
import { BULK_ORDERS, LARGE_ORDER } from './model';
import { FAULT_METHODS } from './codeFaults';
import { RECIPE_STEPS } from './redisRecipe';

const retryAfter: fc.Arbitrary<RetryAfter | undefined> = fc.oneof(
	fc.constant(undefined),
	fc.constantFrom(0, 1, 1.5, 2, 0.2).map((seconds) => ({ seconds })),
	fc.constantFrom(-5000, 2000, 4000).map((dateInMs) => ({ dateInMs })),
	fc.constantFrom('soon', '-1', '1e3').map((text) => ({ text })),
);

/** What a gateway in front of an API adds, and the statuses the spec does not name. */
const OTHER_STATUSES = [301, 302, 303, 307, 400, 401, 403, 404, 408, 409, 422, 500, 501, 502, 504, 507, 520, 521, 522, 523, 524, 525, 526, 527];

const answer: fc.Arbitrary<Answer> = fc.oneof(
	{ weight: 3, arbitrary: fc.constantFrom(201, 202).map((status): Answer => ({ kind: 'taken', status })) },
	{ weight: 4, arbitrary: fc.constant<Answer>({ kind: 'declined' }) },
	{ weight: 6, arbitrary: fc.record({ status: fc.constantFrom<429 | 503>(429, 503), retryAfter }, { requiredKeys: ['status'] }).map((refused): Answer => ({ kind: 'refused', ...refused })) },
	{ weight: 2, arbitrary: fc.constant<Answer>({ kind: 'unreachable' }) },
	{ weight: 2, arbitrary: fc.boolean().map((acted): Answer => ({ kind: 'broken', acted })) },
	{ weight: 1, arbitrary: fc.boolean().map((acted): Answer => ({ kind: 'silent', acted })) },
	// A 4xx is the service's refusal: it acted on nothing.
	{ weight: 4, arbitrary: fc.record({ status: fc.constantFrom(...OTHER_STATUSES), acted: fc.boolean() }).map(({ status, acted }): Answer => ({ kind: 'status', status, acted: acted && !(status >= 400 && status < 500) })) },
	{
		weight: 2,
		arbitrary: fc
			.record({ status: fc.constantFrom(200, 200, 202, 204), body: fc.constantFrom<'garbled' | 'errorObject' | 'fewer' | 'more' | 'empty'>('garbled', 'errorObject', 'fewer', 'more', 'empty') })
			.map((unreadable): Answer => ({ kind: 'unreadable', ...unreadable })),
	},
	{ weight: 1, arbitrary: fc.constant<Answer>({ kind: 'reordered' }) },
);

/** A few orders; now and then one whose key reads like another's "sent" mark, or one whose attachment is too large for a probe. */
const order = fc.oneof(
	{ weight: 12, arbitrary: fc.integer({ min: 0, max: 4 }).map((number) => `order-${number}`) },
	{ weight: 1, arbitrary: fc.integer({ min: 0, max: 4 }).map((number) => `sent order-${number}`) },
	{ weight: 1, arbitrary: fc.integer({ min: 0, max: 1 }).map((number) => `${LARGE_ORDER}${number}`) },
);

const orders = fc.oneof(
	{ weight: 12, arbitrary: fc.array(order, { minLength: 1, maxLength: 3 }) },
	{ weight: 2, arbitrary: fc.integer({ min: BULK_ORDERS + 1, max: BULK_ORDERS + 15 }).map((count) => Array.from({ length: count }, (_, index) => `bulk-${index}`)) },
	{ weight: 1, arbitrary: fc.integer({ min: 100, max: 300 }).map((count) => Array.from({ length: count }, (_, index) => `bulk-${index}`)) },
);

const delivery = (processes: number): fc.Arbitrary<Delivery> =>
	fc.record(
		{
			process: fc.integer({ min: 0, max: processes - 1 }),
			atMs: fc.integer({ min: 0, max: 3000 }),
			orders,
			keyed: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
			maxWaitSeconds: fc.constantFrom(1, 2, 3, 5, 30),
			stopAfterMs: fc.integer({ min: 0, max: 4000 }),
			createAfterMs: fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 2000 }) }),
			ignoreInvalid: fc.oneof({ weight: 6, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
			dryRun: fc.oneof({ weight: 12, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
			maxRequestBytes: fc.constantFrom(1024, 5000, 50_000),
		},
		{ requiredKeys: ['process', 'atMs', 'orders', 'keyed', 'maxWaitSeconds', 'ignoreInvalid', 'dryRun'] },
	);

const processCount = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 1, max: 3 }) }, { weight: 1, arbitrary: fc.integer({ min: 4, max: 10 }) });

/** The cases on as many processes as `processes` draws. */
export const casesOn = (processes: fc.Arbitrary<number>): fc.Arbitrary<SimulationCase> => processes.chain((processes) =>
	fc.record(
		{
			processes: fc.constant(processes),
			deliveries: fc.array(delivery(processes), { minLength: 1, maxLength: Math.max(6, 2 * processes) }),
			answers: fc.array(fc.oneof({ weight: 5, arbitrary: fc.constant<Answer>({ kind: 'taken', status: 200 }) }, { weight: 4, arbitrary: answer }), { maxLength: 12 }),
			storeFaults: fc.array(fc.record({ call: fc.integer({ min: 1, max: 60 }), when: fc.constantFrom<'beforeWrite' | 'afterWrite'>('beforeWrite', 'afterWrite') }), { maxLength: 3 }),
			storeDelays: fc.array(fc.record({ call: fc.integer({ min: 1, max: 60 }), ms: fc.integer({ min: 100, max: 5000 }) }), { maxLength: 2 }),
			// Mostly at a method's first calls: a fault at a call the case never makes tests nothing.
			// Now and then n8n killed mid-case, at any moment of its first seconds, and started again.
			kills: fc.oneof(
				{ weight: 5, arbitrary: fc.constant<Kill[]>([]) },
				{ weight: 1, arbitrary: fc.array(fc.record({ process: fc.integer({ min: 0, max: processes - 1 }), atMs: fc.integer({ min: 0, max: 6000 }), storeCommits: fc.boolean() }), { minLength: 1, maxLength: 2 }) },
			),
			codeFaults: fc.array(fc.record({ method: fc.constantFrom(...FAULT_METHODS), call: fc.oneof({ weight: 4, arbitrary: fc.constant(1) }, { weight: 2, arbitrary: fc.constant(2) }, { weight: 1, arbitrary: fc.integer({ min: 3, max: 4 }) }) }), { maxLength: 2 }),
			paces: fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(2, 5, 10) }), { minLength: processes, maxLength: processes }),
			entityLimitBytes: fc.constantFrom(200_000, 1_000_000, 9_000_000),
			// Settings › Timeout Workflow takes whole seconds.
			workflowTimeoutMs: fc.integer({ min: 1, max: 6 }).map((seconds) => seconds * 1000),
			// Every minute, as the example sets it, or every 5 s, so that retries meet the case's faults and kills.
			sweep: fc.constantFrom(5_000, 60_000).chain((everyMs) => fc.record({ firstAtMs: fc.integer({ min: 0, max: everyMs }), everyMs: fc.constant(everyMs) })),
			randomSeed: fc.integer(),
			commandLine: fc.boolean(),
		},
		{ requiredKeys: ['processes', 'deliveries', 'answers', 'storeFaults', 'storeDelays', 'codeFaults', 'kills', 'paces', 'entityLimitBytes', 'sweep', 'randomSeed', 'commandLine'] },
	),
);

/**
 * A rush in the Redis design: at most this many calls of a bulk's orders. Each call is an
 * execution of its own, and a few hundred of them, delivered again round after round, made `npm
 * test` several times slower; test:queue runs a rush of 120 on a real n8n.
 */
const RUSH_CALLS = 25;

/**
 * Queue mode's Redis design (redisRecipe.ts) in place of the sweep: the shop's webhook carries one
 * order a call, a millisecond apart (a user stops the first), each keyed; the redelivery runs every
 * minute from the sweep's drawn moment; and a kill may fall right before one of the workflows'
 * steps, the first time one on its process reaches it from `atMs` on.
 */
export function withRedisRecipe(simulated: SimulationCase, recipe: RedisRecipe, stepKills: Kill[], workerTimeout: SimulationCase['workerTimeout']): SimulationCase {
	const deliveries = simulated.deliveries.flatMap((delivery) =>
		delivery.orders.slice(0, RUSH_CALLS).map((order, index): Delivery => ({ ...delivery, orders: [order], keyed: true, atMs: delivery.atMs + index, stopAfterMs: index === 0 ? delivery.stopAfterMs : undefined })),
	);
	const { firstAtMs, everyMs } = simulated.sweep;
	return { ...simulated, redisRecipe: recipe, deliveries, kills: [...simulated.kills, ...stepKills], sweep: { firstAtMs: (firstAtMs * 60_000) / everyMs, everyMs: 60_000 }, workerTimeout };
}

/** Each release's worker timeout (`SimulationCase.workerTimeout`), in half the Redis design's cases each. */
const workerTimeout = fc.constantFrom<NonNullable<SimulationCase['workerTimeout']>>('atNextNode', 'cancels');

/** In half the Redis design's cases, a kill right before a step of its workflows. */
const stepKills = (recipe: RedisRecipe, processes: number): fc.Arbitrary<Kill[]> =>
	fc.oneof(
		{ weight: 1, arbitrary: fc.constant<Kill[]>([]) },
		{ weight: 1, arbitrary: fc.array(fc.record({ process: fc.integer({ min: 0, max: processes - 1 }), atMs: fc.integer({ min: 0, max: 3000 }), storeCommits: fc.boolean(), atStep: fc.constantFrom(...RECIPE_STEPS[recipe]) }), { minLength: 1, maxLength: 1 }) },
	);

/** On two processes or more (queue mode), half the cases run the Redis recipe instead of the sweep. */
const withQueueModeDesign = (simulated: SimulationCase): fc.Arbitrary<SimulationCase> =>
	simulated.processes < 2
		? fc.constant(simulated)
		: fc.record({ redis: fc.boolean(), kills: stepKills('records', simulated.processes), workerTimeout }).map(({ redis, kills, workerTimeout: timeout }) => (redis ? withRedisRecipe(simulated, 'records', kills, timeout) : simulated));

export const simulationCase = casesOn(processCount).chain(withQueueModeDesign);

/** Cases of the Redis design alone, with `recipe`, on two or three processes. */
export const redisRecipeCases = (recipe: RedisRecipe): fc.Arbitrary<SimulationCase> =>
	casesOn(fc.integer({ min: 2, max: 3 })).chain((simulated) => fc.tuple(stepKills(recipe, simulated.processes), workerTimeout).map(([kills, timeout]) => withRedisRecipe(simulated, recipe, kills, timeout)));
