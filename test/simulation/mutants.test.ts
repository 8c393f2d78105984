/**
 * Every check of the simulation can fail: each mutant below breaks the sending in one way a
 * fault of this code could, and the simulation, searching cases from a fixed seed, must show a
 * problem of the check it names within `SEARCH_CASES` cases. A check whose mutant passes proves
 * nothing. The cases each search took are printed, as the closing notes quote them.
 */
import { performance } from 'node:perf_hooks';

import fc from 'fast-check';
import type { IExecuteFunctions } from 'n8n-workflow';

import { AccountSender } from '../../nodes/MailingPlatform/actions/transaction/accountSender';
import { KeyClaims } from '../../nodes/MailingPlatform/actions/transaction/deduplication';
import type { Body } from '../../nodes/MailingPlatform/actions/transaction/packing';
import * as render from '../../nodes/MailingPlatform/actions/transaction/render';
import type { Outcome } from '../../nodes/MailingPlatform/actions/transaction/results';
import { SendJob } from '../../nodes/MailingPlatform/actions/transaction/sendJob';
import * as unsent from '../../nodes/MailingPlatform/actions/transaction/unsent';
import * as waits from '../../nodes/MailingPlatform/actions/transaction/waits';
import type { ItemResult } from '../../nodes/MailingPlatform/helpers/itemResults';
import { AccountGate } from '../../nodes/MailingPlatform/transport/accountGate';
import type { ServiceError } from '../../nodes/MailingPlatform/transport/errors';
import * as retry from '../../nodes/MailingPlatform/transport/retry';
import { casesOn, redisRecipeCases, simulationCase } from './cases';
import { BULK_ORDERS, LARGE_ORDER } from './model';
import type { SimulationCase } from './model';
import { threadCpuMs } from './heldThread';
import { RedisModel } from './redis';
import { firstCaseShowing } from './search';
import { World } from './world';

/** How many cases a search may draw: far more than any mutant below needs from its seed. */
const SEARCH_CASES = 400;
const SEED = 56;

/** Replaces `method` of `host` while the search runs; `original` calls what it replaced. */
function replace<T extends object>(host: T, method: string, by: (original: (...args: unknown[]) => unknown) => (this: unknown, ...args: unknown[]) => unknown): void {
	const original = (host as Record<string, (...args: unknown[]) => unknown>)[method];
	jest.spyOn(host as Record<string, (...args: unknown[]) => unknown>, method).mockImplementation(
		by(function (this: unknown, ...args: unknown[]) {
			return original.apply(this, args);
		} as (...args: unknown[]) => unknown),
	);
}

/**
 * Holds the thread `ms` of the real clock (jest fakes the global `performance`, not
 * `node:perf_hooks`') and of its own CPU time, which a loaded machine makes the longer.
 */
function busyFor(ms: number): void {
	const [untilMs, untilCpuMs] = [performance.now() + ms, threadCpuMs() + ms];
	while (performance.now() < untilMs || threadCpuMs() < untilCpuMs);
}

/** The case with nothing failing but its kills: the service takes everything, no store or code fault, no stop or timeout. */
const calm = (simulated: SimulationCase): SimulationCase => ({
	...simulated,
	answers: [],
	storeFaults: [],
	codeFaults: [],
	workflowTimeoutMs: undefined,
	deliveries: simulated.deliveries.map((delivery) => ({ ...delivery, stopAfterMs: undefined })),
});

interface Mutant {
	/** What the mutant breaks. */
	name: string;
	/** The check that must catch it. */
	check: string;
	/** Breaks the sending's code; a mutant of the design alone draws its cases from it instead. */
	mutate?: () => void;
	cases?: fc.Arbitrary<SimulationCase>;
}

/** A give-back that lets go of its keys without writing their "free" marks. */
const forgetWithoutMarking = () =>
	replace(KeyClaims.prototype, 'release', () => async function (this: unknown, itemIndexes: unknown) {
		for (const itemIndex of itemIndexes as number[]) (this as { claimed: Map<number, number> }).claimed.delete(itemIndex);
	});

const MUTANTS: Mutant[] = [
	...[2, 3].map((processes) => ({
		name: `claims that ignore n8n's store, on ${processes} processes`,
		check: 'doubled',
		mutate: () => replace(KeyClaims.prototype, 'claim', () => async () => []),
		cases: casesOn(fc.constant(processes)),
	})),
	{
		name: 'a job that never gives up for Max Wait Seconds',
		check: 'overdue',
		mutate: () => replace(AccountSender.prototype, 'expire', () => () => undefined),
		// A killed process's timers still run here (the simulation cannot stop them): its job that never gives up would loop for good.
		cases: simulationCase.map((simulated) => ({ ...simulated, kills: [] })),
	},
	{
		name: 'a job that gives up half a second early',
		check: 'maxWait',
		mutate: () => {
			const deadlineMs = Object.getOwnPropertyDescriptor(waits.WaitClock.prototype, 'deadlineMs')?.get as () => number;
			jest.spyOn(waits.WaitClock.prototype, 'deadlineMs', 'get').mockImplementation(function (this: waits.WaitClock) {
				return deadlineMs.call(this) - 500;
			});
		},
	},
	{
		// The sender before the rush's (b52d128): keys taken while their orders wait die with n8n, and the redelivery skips those orders.
		name: 'keys recorded in n8n\'s store as their orders start waiting, not as their request leaves, with n8n killed',
		check: 'unknown',
		mutate: () => {
			const claimNow = KeyClaims.prototype.claim;
			replace(KeyClaims, 'hold', (original) => async function (this: unknown, ...args: unknown[]) {
				const held = (await original.apply(this, args)) as { claims: KeyClaims; busy: Outcome[] };
				const busy = new Set(held.busy.flatMap((outcome) => outcome.itemIndexes));
				await claimNow.call(held.claims, (args[2] as number[]).filter((itemIndex) => !busy.has(itemIndex)));
				return held;
			});
			// The keys it took are its own as their request leaves.
			replace(KeyClaims.prototype, 'claim', (original) => async function (this: unknown, itemIndexes: unknown) {
				const taken = (this as unknown as { claimed: Map<number, number> }).claimed;
				const rest = (itemIndexes as number[]).filter((itemIndex) => !taken.has(itemIndex));
				return rest.length === 0 ? [] : await original.call(this, rest);
			} as (...args: unknown[]) => unknown);
			// And gives back, once the execution is done, the keys of orders it never sent.
			replace(KeyClaims.prototype, 'settled', (original) => async function (this: unknown) {
				await (this as KeyClaims).release([...(this as unknown as { claimed: Map<number, number> }).claimed.keys()]);
				return await original.call(this);
			});
		},
		// Nothing else strikes, so that only the kill can show it: with the kills left out, 400 cases pass.
		cases: simulationCase.filter(({ kills }) => kills.length > 0).map(calm),
	},
	{
		// The node before issue 57: with On Error › Continue the execution succeeds, and n8n's retry never sees what it left unsent.
		name: 'a keyed execution that leaves orders unsent and does not fail',
		check: 'lost',
		mutate: () => jest.spyOn(unsent, 'unsentFailure').mockReturnValue(undefined),
	},
	{
		// Create before dabd14b: n8n's timeout cancels an execution with orders still waiting, and n8n's retry of it runs nothing.
		name: "Create that waits past the workflow's Timeout Workflow",
		check: 'lost',
		mutate: () => jest.spyOn(waits, 'beforeTimeoutMs').mockReturnValue(Number.POSITIVE_INFINITY),
	},
	{
		// Create before issue 57's last change: it counted n8n's timeout from its own start, and n8n's own work before it took its margin.
		name: "Create that counts n8n's timeout from its own start",
		check: 'lost',
		mutate: () => replace(waits, 'beforeTimeoutMs', (original) => (context, startedMs) => original({ getWorkflowSettings: () => (context as IExecuteFunctions).getWorkflowSettings() }, startedMs)),
	},
	{
		// Queue mode's Redis recipe before f8d23ea: a counter alone, no record and no redelivery; an order its worker was killed between the count and the send, or not sent yet, is dropped for good.
		name: 'the Redis recipe without records or redelivery',
		check: 'lost',
		cases: redisRecipeCases('counter'),
	},
	{
		// The redelivery before issue 57's queue-mode timeout: n8n marks a timeout canceled, as a user's stop, and the order was forgotten.
		name: "a redelivery that forgets what n8n's timeout cancelled, as a user's stop",
		check: 'lost',
		mutate: () => replace(World.prototype, 'statusOf', (original) => function (this: unknown, ...args: unknown[]) {
			const status = original.apply(this, args);
			return status === 'timedOut' ? 'canceled' : status;
		}),
		cases: redisRecipeCases('records').filter(({ workflowTimeoutMs }) => workflowTimeoutMs !== undefined),
	},
	{
		// Each delivery's EXPIRE restarts the counter: a record delivered again before it lapsed counts more than 1 and forgets itself.
		name: 'a redelivery that delivers while the order\'s counter lives',
		check: 'lost',
		mutate: () => replace(RedisModel.prototype, 'get', () => () => null),
		// Where it shows: a kill between Deliver Again and its DEL leaves a record that is delivered again a minute later, beside the order's own.
		cases: redisRecipeCases('records').filter(({ kills }) => kills.some(({ atStep }) => atStep === 'redeliveredDel')),
	},
	{
		name: 'a start whose request never left kept by the gate',
		check: 'lost',
		mutate: () => replace(AccountGate.prototype, 'returnStart', () => () => undefined),
		// Where it shows: a keyed bulk on a paced account, whose retries find the orders it sent before; on one
		// process, whose retries all meet the gate that kept the starts (across processes 400 cases miss it).
		cases: casesOn(fc.constant(1)).filter(({ deliveries, paces }) => paces.some((pace) => pace > 0) && deliveries.some(({ keyed, orders }) => keyed && orders.length > 100)),
	},
	{
		name: 'a key never marked free after "not sent"',
		check: 'unknown',
		mutate: forgetWithoutMarking,
	},
	{
		name: "a key released for good by removing it, which another process's stale write brings back",
		check: 'unknown',
		mutate: () =>
			replace(KeyClaims.prototype, 'release', () => async function (this: unknown, itemIndexes: unknown) {
				const claims = this as { claimed: Map<number, number>; entryOf: (itemIndex: number) => string; store: { remove: (entries: string[]) => Promise<void> } };
				const mine = (itemIndexes as number[]).filter((itemIndex) => claims.claimed.delete(itemIndex));
				await claims.store.remove(mine.map((itemIndex) => claims.entryOf(itemIndex)));
			}),
	},
	{
		name: "a report's entries paired by position alone, the contacts they name not compared",
		check: 'declined',
		mutate: () => replace(SendJob.prototype, 'contactsOf', (original) => function (this: unknown, ...args: unknown[]) {
			return (original.apply(this, args) as unknown[]).map(() => ({}));
		}),
	},
	{
		name: 'an unknown outcome reported as queued',
		check: 'queued',
		mutate: () =>
			replace(SendJob.prototype, 'failed', (original) =>
				function (this: unknown, body: unknown, error: unknown) {
					const { start, end } = body as Body;
					if (!(error as ServiceError).outcomeUnknown) return original.call(this, body, error);
					return (this as SendJob).reported(body as Body, Array.from({ length: end - start }, () => ({ queued: true, contact: null })));
				} as (...args: unknown[]) => unknown,
			),
	},
	{
		name: "a 500 on a transaction's request read as a plain failure",
		check: 'notSent',
		mutate: () => jest.spyOn(retry, 'leavesOutcomeOpen').mockReturnValue(false),
	},
	{
		name: 'a refused connection read as an unknown outcome',
		check: 'unknown',
		mutate: () => jest.spyOn(retry, 'neverSent').mockReturnValue(false),
	},
	{
		name: 'a key whose outcome is unknown read as already sent',
		check: 'alreadySent',
		mutate: () =>
			replace(KeyClaims.prototype, 'claim', (original) => async function (this: unknown, ...args: unknown[]) {
				const outcomes = (await original.apply(this, args)) as Outcome[];
				return outcomes.map((outcome) => (outcome.kind === 'skipped' ? { ...outcome, reason: 'Not sent again: this node already sent a transaction with this Deduplication Key' } : outcome));
			}),
	},
	{
		name: 'a keyed item not sent whose message does not say that a re-run sends it',
		check: 'reRun',
		mutate: () =>
			replace(render, 'renderOutcomes', (original) => function (this: unknown, ...args: unknown[]) {
				const results = original.apply(this, args) as ItemResult[];
				for (const result of results) if ('error' in result) result.error.description = result.error.description?.replace(/re-run sends it|running it again sends it/gi, 'it failed');
				return results;
			}),
	},
	{
		name: 'a key left taken in n8n\'s store after "not sent"',
		check: 'keyFree',
		mutate: forgetWithoutMarking,
	},
	{
		name: "a 429's pause not kept",
		check: 'pause',
		// A pause of 1 ms, not none: with none, a request held back by the refusal would be tried again at once, forever, on the frozen clock.
		mutate: () => replace(AccountGate.prototype, 'pause', (original) => function (this: unknown, _ms: unknown, reason: unknown) {
			return original.call(this, 1, reason);
		} as (...args: unknown[]) => unknown),
	},
	{
		name: 'a refusal followed by requests of any size',
		check: 'probe',
		mutate: () => replace(AccountGate.prototype, 'largestBodyToRisk', () => () => Number.POSITIVE_INFINITY),
		// Cases where a refusal can meet a body larger than a probe: a large order, or a bulk of a hundred orders or more; no kill, whose new life forgets the refusal.
		cases: simulationCase.filter(
			({ answers, deliveries, kills }) => kills.length === 0 && answers.some((answer) => answer.kind === 'refused') && deliveries.some(({ orders }) => orders.length >= 100 || orders.some((order) => order.startsWith(LARGE_ORDER))),
		),
	},
	{
		name: "one-order executions riding in a bulk's requests",
		check: 'bulk',
		mutate: () => jest.spyOn(SendJob.prototype, 'mayShare', 'get').mockReturnValue(true),
		// Where it shows: a bulk and a one-order execution on one process.
		cases: simulationCase.filter(({ deliveries }) => deliveries.some((bulk) => bulk.orders.length > BULK_ORDERS && deliveries.some((single) => single.orders.length === 1 && single.process === bulk.process))),
	},
	{
		name: 'a step that holds the thread 80 ms now and then',
		check: 'held',
		mutate: () => {
			let calls = 0;
			replace(SendJob.prototype, 'choose', (original) => function (this: unknown, ...args: unknown[]) {
				if (calls++ % 20 === 0) busyFor(80);
				return original.apply(this, args);
			});
		},
	},
	{
		name: 'an item given up without an outcome',
		check: 'items',
		mutate: () => replace(SendJob.prototype, 'giveUp', () => function (this: unknown) {
			(this as { finish: () => void }).finish();
		}),
	},
	{
		name: "an execution that never returns once its keys are settled",
		check: 'ends',
		mutate: () => replace(KeyClaims.prototype, 'settled', () => async () => await new Promise(() => {})),
	},
	{
		name: 'keys held in the process for good',
		check: 'lost',
		mutate: () => replace(KeyClaims.prototype, 'settled', () => async () => undefined),
	},
	{
		name: "an account's sender that stops once it has run dry",
		check: 'wedge',
		mutate: () =>
			replace(AccountSender.prototype, 'pump', (original) => function (this: unknown) {
				const sender = this as { ranDry?: boolean };
				if (sender.ranDry === true) return Promise.resolve();
				sender.ranDry = true;
				return original.call(this);
			}),
	},
];

beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'], now: Date.UTC(2026, 2, 29, 0, 30) }));
afterEach(() => {
	jest.useRealTimers();
	jest.restoreAllMocks();
});

const found: string[] = [];
afterAll(() => console.log(['Mutants, each caught by its check: the case of the search (seed 56) that showed it', ...found].join('\n')));

test.each(MUTANTS.map((mutant) => [mutant.name, mutant] as const))('the simulation catches %s', async (_name, { check, mutate, cases }) => {
	mutate?.();
	const atCase = await firstCaseShowing(check, SEARCH_CASES, SEED, cases ?? simulationCase);
	found.push(`${check}: ${_name}, at case ${atCase ?? `none of ${SEARCH_CASES}`}`);
	expect(atCase).toBeDefined();
}, 120_000);
