/**
 * One simulated case, run on jest's clock: its deliveries become executions of Transaction ›
 * Create on one to ten processes (each its own account sender, gate and key-store queue, as
 * n8n processes are: the account and the workflow are named per process and life), against the
 * models of the service and of n8n's store; users stop executions, n8n's workflow timeout cancels
 * them, the sender's own code throws where the case says, and a kill ends a process's life, which
 * starts again on the same store. fast-check's scheduler decides which of the
 * answers, store calls and the clock's next timer comes next. The shop delivers each order once:
 * what saves an order that n8n answered and did not send is n8n's sweep, which retries the
 * executions that failed, crashed or timed out (not those a user stopped), during the case and
 * after it, with nothing failing, until none is left. Then a fresh order on every process shows
 * that nothing is wedged. On two processes or more a case may draw queue mode's Redis design
 * instead (redisRecipe.ts): each delivery runs the shop workflow's steps around Create, and the
 * redelivery workflow takes the sweep's place.
 */
import type { IExecuteFunctions, INode, INodeParameters } from 'n8n-workflow';
import type { Scheduler } from 'fast-check';

import { execute } from '../../nodes/MailingPlatform/actions/transaction/create.operation';
import type { ItemResult } from '../../nodes/MailingPlatform/helpers/itemResults';
import { KeyClaims } from '../../nodes/MailingPlatform/actions/transaction/deduplication';
import { installCodeFaults } from './codeFaults';
import type { FiredFault } from './codeFaults';
import { HeldThread } from './heldThread';
import type { Delivery, Kill, Life, RecipeStep, SimulationCase } from './model';
import { CaseRecord, LARGE_ORDER, RESTART_MS } from './model';
import type { ExecutionStatus, RecipeHost } from './redisRecipe';
import { RedisWorkflows } from './redisRecipe';
import { emailOf, ServiceModel } from './service';
import { StoreRow } from './storeRow';

/** How long after the last delivery's start the case may run before what still runs counts as hanging. */
const CASE_LIMIT_MS = 10 * 60_000;

/**
 * How long the account is quiet before the fresh orders, as between a shop's rushes: longer than
 * a learned pace is remembered untested (two minutes), so a fresh order meets what the case left
 * behind, not a pace it taught.
 */
const QUIET_BEFORE_FRESH_MS = 3 * 60_000;

/**
 * How long the sweep goes on after the case's faults ended, each sweep retrying what still
 * failed (a pace the refusals taught lapses after two minutes untested): every order must be
 * queued by then, 5 minutes after its cause ended.
 */
const CALM_SWEEPS_MS = 5 * 60_000;

/**
 * The same for the Redis design's redelivery, each of whose rounds comes 3 to 4 minutes after
 * the delivery it repeats: a rush of a few hundred one-order executions on a paced account, each
 * giving up after its Max Wait Seconds, is sent over several rounds.
 */
const CALM_REDELIVERIES_MS = 20 * 60_000;

/**
 * How long after the last delivery the sweep runs while the case's faults strike (every 5 s,
 * some 24 retries of an execution a 100 ms timeout cancels each time); then the faults end.
 */
const FAULTY_SWEEPS_MS = 2 * 60_000;

/** The same for the Redis design's redelivery, which delivers again what was kept 3 minutes: its first run that can meets the case's faults. */
const FAULTY_REDELIVERIES_MS = 4 * 60_000;

/** Steps of the scheduler a phase of a case may take: far more than any case needs. */
const MAX_STEPS = 100_000;

/**
 * How long an execution after the case may take, with the service taking everything: a retried
 * bulk of a few hundred orders goes one per request where a 413 taught the account a small body;
 * a wedge never ends.
 */
export const CALM_LIMIT_MS = 120_000;

let cases = 0;

/** One execution as n8n and the checks see it. */
export interface Execution {
	index: number;
	delivery: Delivery;
	/** A fresh order after the case, with nothing failing. */
	again: boolean;
	/** n8n's sweep retried this execution, or the Redis design's redelivery delivered its order again: the index of the execution it repeats. */
	retryOf?: number;
	/** The sweep has retried it (n8n lists it with a retry since). */
	retried?: boolean;
	/** When n8n started the execution: its workflow timeout counts from here. */
	beganAtMs?: number;
	/** When Create started (`Delivery.createAfterMs` after `beganAtMs`; in the Redis design, whose steps before it take no time, then). */
	startedAtMs?: number;
	/** When each of its claims began (its keys waiting for the process's store) and ended. */
	claims: Array<{ startMs: number; endMs: number }>;
	/** The life of its process it ran in. */
	life?: number;
	/** A kill took its process before its node returned: n8n marks it crashed, with no output. */
	killedAtMs?: number;
	/** When n8n counted it ended: the node returned, or the execution was stopped or timed out. */
	endedAtMs?: number;
	cancelledAtMs?: number;
	/** A user stopped it (n8n: canceled, manually), or n8n's workflow timeout did. */
	cancelledBy?: 'user' | 'timeout';
	/**
	 * In the Redis design (queue mode): when its workflow timeout passes. A queue-mode worker sets
	 * no timer: n8n checks the timeout as each node starts, so Create runs to its end and the
	 * execution is cancelled at the next node (`goesOn`).
	 */
	timesOutAtMs?: number;
	/** When the node's run returned (it may go on after a cancel). */
	returnedAtMs?: number;
	results?: ItemResult[];
	/** The node failed the execution for orders it left unsent, which n8n's retry sends (its results are what it decided). */
	failed?: Error;
	threw?: unknown;
	/** The execution hints the node gave n8n. */
	hints: string[];
	/**
	 * The Redis design's shop workflow around Create (redisRecipe.ts): whether it reached Create
	 * (another delivery counted first, or a kill or a stop came before), the last step it came
	 * to, and when n8n counted it ended. Without it, Create is the workflow.
	 */
	workflow?: { reachedCreate: boolean; at?: RecipeStep; endedAtMs?: number };
}

export class World implements RecipeHost {
	readonly record = new CaseRecord();

	readonly executions: Execution[] = [];

	readonly store: StoreRow;

	private readonly service: ServiceModel;

	/** Queue mode's Redis design, where the case draws it: the workflows, and the Redis they share. */
	readonly redisWorkflows?: RedisWorkflows;

	/** The kills drawn at a workflow's step that fell. */
	private readonly stepKillsFired = new Set<Kill>();

	readonly processes: number;

	/** The code faults the case drew that struck: a fault at a call the code never made tests nothing. */
	readonly codeFaultsFired: FiredFault[] = [];

	/** n8n's store once the case has settled, before any redelivery. */
	entriesAfterCase: readonly string[] = [];

	readonly heldThread = new HeldThread();

	private isFaulty = true;

	private readonly name = `case-${++cases}`;

	private readonly startedAtMs = Date.now();

	private readonly restores: Array<() => void> = [];

	/** The execution each context belongs to (and so its process's life). */
	private readonly executionsOf = new WeakMap<IExecuteFunctions, Execution>();

	/** Each process's life now, counting its kills. */
	private readonly lives: number[];

	/** When each process serves again after its latest kill. */
	private readonly servesAtMs: number[];

	constructor(
		readonly simulated: SimulationCase,
		readonly scheduler: Scheduler,
	) {
		this.store = new StoreRow(this.record, scheduler, simulated.storeFaults, simulated.storeDelays, () => this.isFaulty);
		this.service = new ServiceModel(this.record, simulated, scheduler, () => this.isFaulty, (caller) => this.hasEnded(caller), this.startedAtMs);
		this.lives = Array.from({ length: simulated.processes }, () => 0);
		this.servesAtMs = Array.from({ length: simulated.processes }, () => 0);
		this.processes = simulated.processes;
		if (simulated.redisRecipe !== undefined) this.redisWorkflows = new RedisWorkflows(simulated.redisRecipe, this, this.startedAtMs);
	}

	faulty(): boolean {
		return this.isFaulty;
	}

	async run(): Promise<void> {
		this.watchClaims();
		this.restores.push(installCodeFaults(this.simulated.codeFaults, () => this.isFaulty, this.codeFaultsFired));
		try {
			this.simulated.deliveries.forEach((delivery) => this.deliverAt(delivery, false));
			for (const kill of this.simulated.kills) if (kill.atStep === undefined) setTimeout(() => this.kill(kill), kill.atMs);
			setTimeout(() => this.retryDuringCase(), this.simulated.sweep.firstAtMs);
			const last = Math.max(0, ...this.simulated.deliveries.map((delivery) => delivery.atMs));
			await this.runUntilQuiet(Date.now() + last + CASE_LIMIT_MS);
		} finally {
			this.isFaulty = false;
		}
		// What still runs from the case ends first (a timeout armed in it may yet cancel it).
		await this.runUntilQuiet(Date.now() + CALM_LIMIT_MS);
		this.entriesAfterCase = [...this.store.entries];
		const calmEndsMs = Date.now() + (this.redisWorkflows === undefined ? CALM_SWEEPS_MS : CALM_REDELIVERIES_MS);
		while (Date.now() < calmEndsMs && this.retryRound() > 0) {
			await this.runUntilQuiet(Date.now() + CALM_LIMIT_MS);
			await jest.advanceTimersByTimeAsync(this.simulated.sweep.everyMs);
		}
		await jest.advanceTimersByTimeAsync(QUIET_BEFORE_FRESH_MS);
		for (let process = 0; process < this.simulated.processes; process++) {
			this.deliverAt({ process, atMs: 0, keyed: false, maxWaitSeconds: 120, ignoreInvalid: true, dryRun: false, orders: [`fresh-${process}`] }, true);
			await this.runUntilQuiet(Date.now() + CALM_LIMIT_MS);
		}
	}

	/**
	 * n8n's status says the sweep retries it: failed (the node threw) or crashed (a kill took it,
	 * and its process, started again, marked it so); not cancelled, by a user or the workflow's
	 * timeout (n8n's retry of it runs nothing again), not yet retried.
	 */
	private retryable(execution: Execution): boolean {
		// The sweep retries executions of workflows whose Create has a key: without one, a retry would send again what was queued.
		if (execution.retried === true || execution.again || !execution.delivery.keyed) return false;
		if (execution.killedAtMs !== undefined) return Date.now() >= this.servesAtMs[execution.delivery.process];
		if (execution.endedAtMs === undefined || execution.cancelledBy !== undefined) return false;
		return execution.failed !== undefined || execution.threw !== undefined;
	}

	/**
	 * One run of n8n's sweep: retries every retryable execution, as n8n's retry does, with the
	 * execution's input (a retry of a retry goes to the next process, as a queue-mode main hands it
	 * to any worker). Returns how many it retried.
	 */
	private sweep(): number {
		const retried = this.executions.filter((execution) => this.retryable(execution));
		retried.forEach((execution, index) => {
			execution.retried = true;
			const generation = this.generationOf(execution) + 1;
			const process = (execution.delivery.process + generation) % this.simulated.processes;
			// A millisecond apart: n8n starts each retry as a task of its own (an API call each), not all in one turn.
			this.deliverAt({ ...execution.delivery, process, atMs: index, stopAfterMs: undefined }, false, execution.index);
		});
		return retried.length;
	}

	private generationOf(execution: Execution): number {
		return execution.retryOf === undefined ? 0 : 1 + this.generationOf(this.executions[execution.retryOf]);
	}

	/** One run of the design's retrier, the sweep or the Redis design's redelivery; returns how much it leaves to later runs. */
	private retryRound(): number {
		if (this.redisWorkflows !== undefined) return this.redisWorkflows.redeliver();
		return this.sweep() + this.executions.filter((execution) => this.awaitsSweep(execution)).length;
	}

	/** The retrier runs during the case while anything is under way or left to retry, for a while after the last delivery. */
	private retryDuringCase(): void {
		const last = Math.max(0, ...this.simulated.deliveries.map((delivery) => delivery.atMs));
		const faultyMs = this.redisWorkflows === undefined ? FAULTY_SWEEPS_MS : FAULTY_REDELIVERIES_MS;
		if (!this.isFaulty || Date.now() - this.startedAtMs > last + faultyMs) return;
		if (this.retryRound() > 0) setTimeout(() => this.retryDuringCase(), this.simulated.sweep.everyMs);
	}

	/** Whether a later sweep may yet retry the execution: it runs, is retryable, or crashed and waits for its process to serve again. */
	private awaitsSweep(execution: Execution): boolean {
		return execution.endedAtMs === undefined || this.retryable(execution) || (execution.killedAtMs !== undefined && execution.retried !== true);
	}

	/** Restores the methods the case made throw. */
	dispose(): void {
		for (const restore of this.restores.splice(0)) restore();
	}

	/**
	 * Notes, per life, the orders whose keys a claim began to record (what a kill may leave
	 * unknown), and per execution when each claim began and ended (what n8n's timeout may cut off).
	 */
	private watchClaims(): void {
		const { claim } = KeyClaims.prototype;
		const { executionsOf, record } = this;
		KeyClaims.prototype.claim = function (this: KeyClaims, itemIndexes: readonly number[]) {
			const execution = executionsOf.get((this as unknown as { context: IExecuteFunctions }).context);
			const life = `${execution?.delivery.process}/${execution?.life ?? 0}`;
			const begun = record.claimsBegun.get(life) ?? new Set<string>();
			record.claimsBegun.set(life, begun);
			for (const itemIndex of itemIndexes) begun.add(this.keyOf(itemIndex));
			const span = { startMs: Date.now(), endMs: Number.POSITIVE_INFINITY };
			execution?.claims.push(span);
			const claiming = claim.call(this, itemIndexes);
			void claiming.finally(() => (span.endMs = Date.now())).catch(() => {});
			return claiming;
		};
		this.restores.push(() => (KeyClaims.prototype.claim = claim));
	}

	/**
	 * Runs until nothing is left to happen or `untilMs` has passed: at each step the scheduler
	 * lets one waiting answer or store call settle, or lets the clock run to its next timer.
	 */
	private async runUntilQuiet(untilMs: number): Promise<void> {
		let clockWaiting = false;
		for (let step = 1; ; step++) {
			// A loop that keeps setting timers without the clock moving would never let this end.
			if (step > MAX_STEPS) throw new Error(`the case did not settle in ${MAX_STEPS} steps, at ${Date.now() - this.startedAtMs} ms of its clock: something runs in a loop`);
			let quiet = false;
			await this.heldThread.step(async () => {
				await settle();
				// A step of the Redis design's workflows takes no time: the clock waits for it.
				const stepsPending = () => (this.redisWorkflows?.stepsPending ?? 0) > 0;
				if (!clockWaiting && !stepsPending() && jest.getTimerCount() > 0 && Date.now() < untilMs) {
					clockWaiting = true;
					void this.scheduler.schedule(Promise.resolve(), 'the clock runs').then(() => {
						clockWaiting = false;
						if (!stepsPending()) jest.advanceTimersToNextTimer();
					});
				}
				quiet = this.scheduler.count() === 0;
				if (!quiet) await this.scheduler.waitOne();
			}, this.isFaulty);
			if (quiet) return;
		}
	}

	/**
	 * Kills the process: its executions under way are crashed, their node runs cut off from the
	 * world (no request or store call of theirs comes back), and it serves again after
	 * `RESTART_MS` in a new life, knowing nothing of the earlier one.
	 */
	private kill({ process, storeCommits, atStep }: Kill, order?: string): void {
		const life = this.lives[process]++;
		this.record.kills.push({ process, life, atMs: Date.now(), atStep, order });
		this.store.kill({ process, life }, storeCommits);
		for (const execution of this.executions) {
			const done = execution.workflow === undefined ? execution.returnedAtMs !== undefined : execution.workflow.endedAtMs !== undefined;
			if (execution.delivery.process !== process || execution.life !== life || done) continue;
			execution.killedAtMs = Date.now();
			execution.endedAtMs ??= execution.killedAtMs;
		}
		this.servesAtMs[process] = Date.now() + RESTART_MS;
	}

	private hasEnded({ process, life }: Life): boolean {
		return this.lives[process] !== life;
	}

	killAt(process: number, step: RecipeStep, order: string): void {
		const due = this.simulated.kills.find((kill) => kill.atStep === step && kill.process === process && !this.stepKillsFired.has(kill) && Date.now() - this.startedAtMs >= kill.atMs);
		if (due === undefined) return;
		this.stepKillsFired.add(due);
		this.kill(due, order);
	}

	lifeOf(process: number): number {
		return this.lives[process];
	}

	goesOn(execution: Execution): boolean {
		if (execution.killedAtMs !== undefined || execution.cancelledAtMs !== undefined) return false;
		if (execution.timesOutAtMs === undefined || Date.now() < execution.timesOutAtMs) return true;
		execution.cancelledAtMs = execution.endedAtMs = Date.now();
		execution.cancelledBy = 'timeout';
		return false;
	}

	/**
	 * n8n's status of the execution: a killed one is running until its worker serves again and n8n
	 * marks it crashed; a cancelled one is `timedOut` where it ran for the workflow's timeout less a
	 * second, as the redelivery tells them apart (n8n marks both canceled), whoever cancelled it.
	 */
	statusOf(execution: Execution): ExecutionStatus {
		const timeoutMs = this.simulated.workflowTimeoutMs;
		if (execution.cancelledBy !== undefined) {
			return timeoutMs !== undefined && (execution.cancelledAtMs ?? 0) - (execution.beganAtMs ?? 0) >= timeoutMs - 1000 ? 'timedOut' : 'canceled';
		}
		if (execution.killedAtMs !== undefined) return Date.now() >= this.servesAtMs[execution.delivery.process] ? 'ended' : 'running';
		return execution.endedAtMs === undefined ? 'running' : 'ended';
	}

	deliverAgain(order: string, process: number, of: Execution): void {
		this.deliverAt({ ...of.delivery, orders: [order], process, atMs: 0, stopAfterMs: undefined }, false, of.index);
	}

	private deliverAt(delivery: Delivery, again: boolean, retryOf?: number): void {
		const execution: Execution = { index: this.executions.length, delivery, again, retryOf, hints: [], claims: [] };
		this.executions.push(execution);
		setTimeout(() => this.start(execution), delivery.atMs);
	}

	private start(execution: Execution): void {
		const { delivery } = execution;
		// What the shop delivers while n8n is down it delivers again once n8n serves (its webhook retries).
		const downMs = this.servesAtMs[delivery.process] - Date.now();
		if (downMs > 0) return void setTimeout(() => this.start(execution), downMs);
		execution.beganAtMs = Date.now();
		execution.life = this.lives[delivery.process];
		const cancel = new AbortController();
		// Users stop, and n8n's timeout cancels, only while the case's faults strike.
		const cancelAfter = (ms: number | undefined, by: 'user' | 'timeout') => {
			if (ms === undefined || !this.isFaulty) return;
			setTimeout(() => {
				if (execution.endedAtMs !== undefined) return;
				execution.cancelledAtMs = execution.endedAtMs = Date.now();
				execution.cancelledBy = by;
				cancel.abort();
			}, ms);
		};
		cancelAfter(delivery.stopAfterMs, 'user');
		const timeoutMs = this.simulated.workflowTimeoutMs;
		if (this.redisWorkflows === undefined || execution.again || this.simulated.workerTimeout === 'cancels') cancelAfter(timeoutMs, 'timeout');
		else if (timeoutMs !== undefined && this.isFaulty) execution.timesOutAtMs = execution.beganAtMs + timeoutMs;
		// n8n hands each node the moment its timeout cancels the execution, counted from the execution's start.
		const timeoutAtMs = timeoutMs !== undefined && this.isFaulty ? execution.beganAtMs + timeoutMs : undefined;
		const context = this.contextOf(execution, cancel.signal, timeoutAtMs);
		const create = async () => {
			try {
				const { results, failure } = await execute.call(context, { continueOnFail: this.continuesOnFail(execution), errorOutput: false }, undefined);
				if (execution.killedAtMs !== undefined) return undefined;
				execution.results = results;
				execution.failed = failure;
				return results;
			} catch (error) {
				if (execution.killedAtMs === undefined) execution.threw = error;
				return undefined;
			} finally {
				if (execution.killedAtMs === undefined) {
					execution.returnedAtMs = Date.now();
					if (execution.workflow === undefined) execution.endedAtMs ??= execution.returnedAtMs;
				}
			}
		};
		const run = () => {
			// A kill, a stop or the timeout came first: Create never ran.
			if (execution.endedAtMs !== undefined) return;
			execution.startedAtMs = Date.now();
			// The fresh orders after the case go to Create alone: they show whether sending is wedged.
			if (this.redisWorkflows !== undefined && !execution.again) void this.redisWorkflows.run(execution, create);
			else void create();
		};
		// A main process's own work before Create; the Redis design's steps take no time.
		const createAfterMs = this.redisWorkflows === undefined ? (delivery.createAfterMs ?? 0) : 0;
		if (createAfterMs > 0) setTimeout(run, createAfterMs);
		else run();
	}

	/**
	 * As the README sets it up: keyed Create with On Error › Stop Workflow, so that n8n's retry
	 * finds what it left unsent; without a key, Continue; in the Redis design, Continue (regular
	 * output), its workflow branching on each item.
	 */
	private continuesOnFail({ delivery, again }: Execution): boolean {
		return !delivery.keyed || (this.redisWorkflows !== undefined && !again);
	}

	private contextOf(execution: Execution, signal: AbortSignal, timeoutAtMs: number | undefined): IExecuteFunctions {
		const { delivery, index } = execution;
		const items = delivery.orders.map((order, item) => ({ json: { type: 1, contact: { email: emailOf(order) }, content: { order, delivery: index, item, ...paddingOf(order) }, ...attachmentsOf(order) } }));
		const options: INodeParameters = { maxWaitSeconds: delivery.maxWaitSeconds, ignoreInvalidTransactions: delivery.ignoreInvalid, dryRun: delivery.dryRun };
		if (delivery.maxRequestBytes !== undefined) options.maxRequestBytes = delivery.maxRequestBytes;
		if (delivery.keyed) options.deduplicationKey = '={{ $json.content.order }}';
		const node: INode = {
			id: 'create',
			name: 'Create',
			type: 'n8n-nodes-mailing-platform.mailingPlatform',
			typeVersion: 1,
			position: [0, 0],
			parameters: { resource: 'transaction', operation: 'create', inputMode: 'json', transactionJson: '={{ $json }}', options },
		};
		const parameterAt = (name: string, fallback: unknown) => {
			let value: unknown = node.parameters;
			for (const key of name.split('.')) value = value !== null && typeof value === 'object' ? (value as { [key: string]: unknown })[key] : undefined;
			return value ?? fallback;
		};
		// A life of its own: a process started again has new senders, gates and key holds.
		const caller: Life = { process: delivery.process, life: execution.life ?? 0 };
		const credential = { baseUrl: `https://service.test/${this.name}/process-${caller.process}/life-${caller.life}`, apiKey: 'simulated', maxRequestsPerSecond: this.simulated.paces[delivery.process] ?? 0 };
		const store = this.store;
		const answer = async (request: { method: string; url: string; body?: Buffer }) => await this.service.answer(caller, request);
		const context = {
			getNode: () => node,
			getWorkflow: () => ({ id: `${this.name}-process-${caller.process}-life-${caller.life}`, name: 'Shop', active: true }),
			getInputData: () => items,
			getNodeParameter: (name: string, _itemIndex: number, fallback: unknown) => parameterAt(name, fallback),
			getCredentials: async () => credential,
			continueOnFail: () => this.continuesOnFail(execution),
			getExecutionCancelSignal: () => signal,
			additionalData: { executionTimeoutTimestamp: timeoutAtMs },
			// The workflow's Settings › Timeout Workflow, where n8n's timeout cancels it (`start`).
			getWorkflowSettings: () => (this.isFaulty && this.simulated.workflowTimeoutMs !== undefined ? { executionTimeout: this.simulated.workflowTimeoutMs / 1000 } : {}),
			addExecutionHints: (...hints: Array<{ message: string }>) => execution.hints.push(...hints.map((hint) => hint.message)),
			getTimezone: () => 'Europe/Berlin',
			getMode: () => (this.simulated.commandLine ? 'cli' : 'webhook'),
			logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
			helpers: {
				checkProcessedAndRecord: async (keys: Array<string | number>, _scope: string, { maxEntries }: { maxEntries: number }) => {
					const processed = await store.call(caller, 'record', keys.map(String), maxEntries);
					return { new: keys.filter((key) => !processed.includes(String(key))), processed };
				},
				removeProcessed: async (keys: Array<string | number>, _scope: string, { maxEntries }: { maxEntries: number }) => {
					await store.call(caller, 'remove', keys.map(String), maxEntries);
				},
				httpRequestWithAuthentication: async (_type: string, request: { method: string; url: string; body?: Buffer }) => await answer(request),
			},
		} as unknown as IExecuteFunctions;
		this.executionsOf.set(context, execution);
		return context;
	}
}

/** A bulk's orders are of a shop's size, so that a few hundred fill a large request. */
function paddingOf(order: string): { padding?: string } {
	return order.startsWith('bulk-') ? { padding: 'x'.repeat(600) } : {};
}

/** A large order carries an invoice of 112 kB (150 kB in Base64): larger than a probe may be. */
const INVOICE = Buffer.alloc(112_500, 7).toString('base64');
function attachmentsOf(order: string): { attachments?: Array<{ filename: string; mimetype: string; data: string }> } {
	return order.startsWith(LARGE_ORDER) ? { attachments: [{ filename: 'invoice.pdf', mimetype: 'application/pdf', data: INVOICE }] } : {};
}

/** Lets every promise that can settle now settle (the real event loop's turn, not the simulated clock's). */
async function settle(): Promise<void> {
	for (let turn = 0; turn < 3; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}
