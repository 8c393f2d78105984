/**
 * Queue mode's design with Redis (examples/shop-order-sent-once-redis.json): the shop workflow's
 * steps around the real Create, one order per webhook call, and the redelivery workflow
 * (examples/redeliver-pending-orders.json) every minute. The old recipe, before f8d23ea, counted
 * deliveries for 14 days and kept no record: a worker killed between the count and the send
 * dropped the order for good; `mutants.test.ts` holds the simulation to finding that.
 *
 * Between two steps fast-check's scheduler may run anything else, and a kill drawn at a step
 * falls right before it; the clock does not move while a step waits (Redis answers at once).
 */
import type { Scheduler } from 'fast-check';

import { outputOf } from '../../nodes/MailingPlatform/helpers/itemResults';
import type { ItemResult } from '../../nodes/MailingPlatform/helpers/itemResults';
import type { RecipeStep, RedisRecipe } from './model';
import { RedisModel } from './redis';
import type { Execution } from './world';

/** The steps where a case may draw a kill, each named by what comes right after it, in the order the recipe reaches them. */
export const RECIPE_STEPS: Record<RedisRecipe, readonly RecipeStep[]> = {
	records: ['keep', 'incr', 'expire', 'decide', 'forget', 'clear', 'redeliveredDel'],
	counter: ['incr', 'expire', 'decide', 'clear'],
};

/** Count Deliveries' time to live: today's 150 s (longer than Create's Max Wait Seconds), the old recipe's 14 days. */
const COUNTER_TTL_S: Record<RedisRecipe, number> = { records: 150, counter: 14 * 24 * 3600 };

/** Keep Until Decided's time to live: 7 days. */
const RECORD_TTL_S = 7 * 24 * 3600;

/** The redelivery delivers again what was kept this long: the counter of its delivery (150 s) has lapsed. */
const KEPT_FOR_MS = 3 * 60_000;

const PENDING = 'order-pending:';

/** Count Deliveries' counter of an order. */
const counterOf = (order: string) => `order-confirmation:${order}`;

/**
 * n8n's status of an execution, as the redelivery's API call reads it: `ended` is success, error
 * or crashed; `timedOut` is canceled after running for the workflow's timeout less a second (n8n
 * marks a timeout canceled, as a user's stop).
 */
export type ExecutionStatus = 'canceled' | 'timedOut' | 'running' | 'ended';

/** What the workflows need of the world they run in. */
export interface RecipeHost {
	readonly scheduler: Scheduler;
	readonly processes: number;
	faulty(): boolean;
	/** Fires a kill the case drew right before `step` on `process`, if one is due; `order` is the one the step was about. */
	killAt(process: number, step: RecipeStep, order: string): void;
	/** The life of `process` now: it changes at a kill. */
	lifeOf(process: number): number;
	/** Whether n8n runs the execution's next node: its worker was not killed, and n8n did not cancel it. */
	goesOn(execution: Execution): boolean;
	statusOf(execution: Execution): ExecutionStatus;
	/** The shop webhook's POST, as the redelivery sends it: a new execution of the order, on the worker n8n hands it to. */
	deliverAgain(order: string, process: number, of: Execution): void;
	readonly executions: readonly Execution[];
}

export class RedisWorkflows {
	readonly redis: RedisModel;

	/** Steps waiting for their turn: the clock waits for them. */
	stepsPending = 0;

	private redeliveries = 0;

	constructor(
		private readonly recipe: RedisRecipe,
		private readonly host: RecipeHost,
		startedAtMs: number,
	) {
		this.redis = new RedisModel(startedAtMs);
	}

	/**
	 * The shop workflow for one delivery, Create's run (`create`, the real `execute()` with On
	 * Error › Continue) in its middle. It ends where n8n would end it, or where n8n runs no further
	 * node of it: cancelled (ended then), or killed (crashed: it never ends).
	 */
	async run(execution: Execution, create: () => Promise<ItemResult[] | undefined>): Promise<void> {
		const order = execution.delivery.orders[0];
		const counter = counterOf(order);
		const record = `${PENDING}${order}:${execution.index}`;
		const { redis } = this;
		const workflow: NonNullable<Execution['workflow']> = (execution.workflow = { reachedCreate: false });
		const end = () => {
			if (execution.killedAtMs !== undefined) return;
			redis.trace(`execution ${execution.index} (${order}) ends${execution.cancelledBy === undefined ? '' : `, cancelled by ${execution.cancelledBy}`}`);
			workflow.endedAtMs = Date.now();
			execution.endedAtMs ??= workflow.endedAtMs;
		};
		// The webhook answered the shop at once: a kill before the first node loses this delivery.
		if (this.recipe === 'records') {
			if (!(await this.step(execution, 'keep'))) return end();
			redis.set(record, JSON.stringify({ at: Date.now(), execution: execution.index, order }), RECORD_TTL_S);
		}
		if (!(await this.step(execution, 'incr'))) return end();
		const count = redis.incr(counter);
		// n8n's Redis node: `await client.incr(key)`, then, as a command of its own, EXPIRE.
		if (!(await this.step(execution, 'expire'))) return end();
		redis.expire(counter, COUNTER_TTL_S[this.recipe]);
		if (!(await this.step(execution, 'decide'))) return end();
		if (count !== 1) {
			// Sent or Being Sent: another delivery counted first.
			if (this.recipe === 'records') redis.del(record);
			return end();
		}
		workflow.reachedCreate = true;
		const results = await create();
		// Create threw (the execution failed), or n8n runs no further node.
		if (results === undefined || !this.host.goesOn(execution)) return end();
		const json = outputOf({ continueOnFail: true, errorOutput: false }, results);
		const item = 'items' in json ? json.items[0]?.json ?? {} : {};
		if (this.recipe === 'records') {
			// Not Sent Yet?: the record stays, for the redelivery.
			if (item.notSentYet === true) return end();
			if (!(await this.step(execution, 'forget'))) return end();
			redis.del(record);
			if (item.queued === true || (item.skipped === true && item.outcomeUnknown !== true)) return end();
		} else if (item.queued === true || item.outcomeUnknown === true) {
			// The old recipe: queued, or Check in the Platform.
			return end();
		}
		if (!(await this.step(execution, 'clear'))) return end();
		redis.del(counter);
		// Not Queued or Unknown fails the execution on purpose (the old recipe ended there).
		end();
	}

	/**
	 * One run of the redelivery workflow, on the worker whose turn it is: every record kept 3
	 * minutes or more whose execution ended, or n8n's timeout cancelled, is delivered again and
	 * forgotten once its order's counter has lapsed (each delivery's EXPIRE restarts its 150 s);
	 * one a user stopped only forgotten.
	 * Returns how many records it leaves, and of executions under way, for the calm period's loop.
	 */
	redeliver(): number {
		if (this.recipe !== 'records') return this.host.executions.filter((execution) => this.host.statusOf(execution) === 'running').length;
		const process = this.redeliveries++ % this.host.processes;
		const life = this.host.lifeOf(process);
		const due = this.redis.keys(PENDING).map(([key, value]) => ({ key, ...(JSON.parse(value) as { at: number; execution: number; order: string }) })).filter(({ at }) => Date.now() - at >= KEPT_FOR_MS);
		for (const { key, execution: index, order } of due) {
			const execution = this.host.executions[index];
			const status = this.host.statusOf(execution);
			this.redis.trace(`redelivery on process ${process}: ${key} of a ${status} execution`);
			if (status === 'running') continue;
			if (status === 'ended' || status === 'timedOut') {
				// Its Counter, Counter Lapsed?: a delivery now would count more than 1 and forget itself.
				if (this.redis.get(counterOf(order)) !== null) continue;
				this.host.deliverAgain(order, (process + 1 + index) % this.host.processes, execution);
			}
			// Deliver Again, then Forget Delivered Record: a kill between them leaves the record to the next minute.
			this.host.killAt(process, 'redeliveredDel', order);
			if (this.host.lifeOf(process) !== life) break;
			this.redis.del(key);
		}
		return this.redis.keys(PENDING).length + this.host.executions.filter((execution) => this.host.statusOf(execution) === 'running').length;
	}

	/** Waits for the step's turn; false where n8n runs no further node of the execution (a kill drawn here, a kill or a cancel meanwhile). */
	private async step(execution: Execution, step: RecipeStep): Promise<boolean> {
		execution.workflow!.at = step;
		if (this.host.faulty()) {
			this.stepsPending++;
			try {
				await this.host.scheduler.schedule(Promise.resolve(), `execution ${execution.index}: ${step}`);
			} finally {
				this.stepsPending--;
			}
		}
		if (this.host.goesOn(execution)) this.host.killAt(execution.delivery.process, step, execution.delivery.orders[0]);
		return this.host.goesOn(execution);
	}
}
