/**
 * The cases the simulation draws: deliveries of a few orders (the same order again, during and
 * after), a bulk now and then, keyed and not, on one to three processes; the service's answers;
 * store calls and methods of the sender's own code that fail; stops and n8n's workflow timeout.
 * Small numbers on purpose: a race needs two or three actors, and shrinking reads best short.
 */
import fc from 'fast-check';

import type { Answer, Delivery, SimulationCase } from './model';
import { FAULT_METHODS } from './world';
import { BULK_ORDERS } from './checks';

const ANSWERS: readonly Answer[] = ['taken', 'declined', 'tooMany', 'unavailable', 'tooLarge', 'unreachable', 'brokenAfter', 'serverError', 'garbled'];

const order = fc.integer({ min: 0, max: 4 }).map((number) => `order-${number}`);

const orders = fc.oneof(
	{ weight: 6, arbitrary: fc.array(order, { minLength: 1, maxLength: 3 }) },
	{ weight: 1, arbitrary: fc.integer({ min: BULK_ORDERS + 1, max: BULK_ORDERS + 15 }).map((count) => Array.from({ length: count }, (_, index) => `bulk-${index}`)) },
);

const delivery = (processes: number): fc.Arbitrary<Delivery> =>
	fc.record(
		{
			process: fc.integer({ min: 0, max: processes - 1 }),
			atMs: fc.integer({ min: 0, max: 3000 }),
			orders,
			keyed: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
			maxWaitSeconds: fc.constantFrom(1, 3, 30),
			stopAfterMs: fc.integer({ min: 0, max: 4000 }),
		},
		{ requiredKeys: ['process', 'atMs', 'orders', 'keyed', 'maxWaitSeconds'] },
	);

export const simulationCase: fc.Arbitrary<SimulationCase> = fc.integer({ min: 1, max: 3 }).chain((processes) =>
	fc.record(
		{
			processes: fc.constant(processes),
			deliveries: fc.array(delivery(processes), { minLength: 1, maxLength: 6 }),
			answers: fc.array(fc.oneof({ weight: 5, arbitrary: fc.constant<Answer>('taken') }, { weight: 4, arbitrary: fc.constantFrom(...ANSWERS) }), { maxLength: 10 }),
			storeFaults: fc.array(fc.record({ call: fc.integer({ min: 1, max: 24 }), when: fc.constantFrom<'beforeWrite' | 'afterWrite'>('beforeWrite', 'afterWrite') }), { maxLength: 3 }),
			codeFaults: fc.array(fc.record({ method: fc.constantFrom(...FAULT_METHODS), call: fc.integer({ min: 1, max: 4 }) }), { maxLength: 2 }),
			workflowTimeoutMs: fc.integer({ min: 100, max: 6000 }),
			randomSeed: fc.integer(),
			fullHistory: fc.boolean(),
			commandLine: fc.boolean(),
		},
		{ requiredKeys: ['processes', 'deliveries', 'answers', 'storeFaults', 'codeFaults', 'randomSeed', 'fullHistory', 'commandLine'] },
	),
);
