/**
 * What a simulated case is made of: the service's answers as the case draws them, and what they
 * mean (acted on, left open, a pause asked), the deliveries, faults and kills; and the record of
 * what the service and n8n's store (storeRow.ts) saw, which the checks read.
 */

/**
 * How the service (or a gateway in front of it) answers a request, by the request's number in
 * the case; later ones are taken. `acted`: whether the service queued the transactions before
 * the answer, which only the kinds that leave it open draw.
 */
export type Answer =
	| { kind: 'taken'; status: number }
	/** Every transaction reported `queued: false`; with Ignore Invalid Transactions off, a 400 for the whole request. */
	| { kind: 'declined' }
	/** 429 or 503, with the `Retry-After` drawn (absent when undefined). */
	| { kind: 'refused'; status: 429 | 503; retryAfter?: RetryAfter }
	/** 413: the body was larger than the service takes (`SimulationCase.entityLimitBytes`), whatever the case drew. */
	| { kind: 'tooLarge' }
	/** The connection was refused: nothing left. */
	| { kind: 'unreachable' }
	/** The connection broke after the request left. */
	| { kind: 'broken'; acted: boolean }
	/** No answer: the request times out after the transport's 120 s. */
	| { kind: 'silent'; acted: boolean }
	/** Any other status: 3xx, 4xx, 5xx, a gateway's 502 to 527. */
	| { kind: 'status'; status: number; acted: boolean }
	/** 2xx whose body cannot be matched to the transactions: not JSON, an error object, fewer or more reports, an empty 204. */
	| { kind: 'unreadable'; status: number; body: 'garbled' | 'errorObject' | 'fewer' | 'more' | 'empty' }
	/** 200 whose entries come in reverse order, each naming its contact: the service queued the request's first transaction only. */
	| { kind: 'reordered' };

/** `Retry-After` as a service may send it: seconds (whole or not), an HTTP date in the past or future, or text no one can read. */
export type RetryAfter = { seconds: number } | { text: string } | { dateInMs: number };

/** Whether the service acted on a request so answered: its transactions were queued. */
export function acted(answer: Answer): boolean {
	switch (answer.kind) {
		case 'taken':
		case 'unreadable':
		case 'reordered':
			return true;
		case 'broken':
		case 'silent':
		case 'status':
			return answer.acted;
		default:
			return false;
	}
}

/**
 * Whether the service may have acted on a request so answered, as far as its sender can tell:
 * anything but a refusal (429, 503, 413, another 4xx), a connection never made and a report that
 * none was queued.
 */
export function leftOpen(answer: Answer): boolean {
	switch (answer.kind) {
		case 'refused':
		case 'tooLarge':
		case 'unreachable':
		case 'declined':
			return false;
		case 'status':
			return answer.status < 400 || answer.status >= 500;
		default:
			return true;
	}
}

/** Whether an answer is a refusal for the account's rate or an outage (429, 503): the account pauses. */
export const isRefusal = (answer: Answer) => answer.kind === 'refused';

/**
 * The least pause after a refusal before the process sends again, in ms: what the service's
 * `Retry-After` asks (capped at the transport's 30 s), and never less than the first backoff's
 * floor (250 ms), whatever it says or when it says nothing readable.
 */
export function pauseAskedMs(retryAfter: RetryAfter | undefined): number {
	const floor = 250;
	if (retryAfter === undefined || 'text' in retryAfter) return floor;
	const asked = 'seconds' in retryAfter ? retryAfter.seconds * 1000 : retryAfter.dateInMs;
	// An HTTP date has whole seconds: the date drawn was rounded down when written.
	const rounding = 'dateInMs' in retryAfter ? 1000 : 0;
	return Math.max(floor, Math.min(30_000, asked) - rounding);
}

/** An execution with more orders than this is a bulk, whose requests a one-order execution must not ride in. */
export const BULK_ORDERS = 10;

/** Orders so named are larger than a probe may be. */
export const LARGE_ORDER = 'large-';

/** One delivery of orders to Create: an execution on a process, started at `atMs`. */
export interface Delivery {
	process: number;
	atMs: number;
	orders: string[];
	keyed: boolean;
	maxWaitSeconds: number;
	/** A user stops the execution then (ms after its start). */
	stopAfterMs?: number;
	/** How long n8n's own work before Create takes (the trigger node, saving the execution), ms after the execution's start: on a busy main process, seconds. */
	createAfterMs?: number;
	/** Create's options that change sending: off, one invalid transaction fails its whole request. */
	ignoreInvalid: boolean;
	dryRun: boolean;
	maxRequestBytes?: number;
}

/** A store call (by its number in the case) that fails before its write, or whose answer is lost after it. */
export interface StoreFault {
	call: number;
	when: 'beforeWrite' | 'afterWrite';
}

/** A store call (by its number in the case) that takes `ms` of the clock before it reads the row (a busy database). */
export interface StoreDelay {
	call: number;
	ms: number;
}

/**
 * n8n's process killed (SIGKILL) `atMs` after the case's start: what it held in memory is gone,
 * answers to its requests and store calls under way are lost, and a store call under way either
 * committed (`storeCommits`) or not. It serves again `RESTART_MS` later on the same store, with
 * what a shop delivers meanwhile.
 */
export interface Kill {
	process: number;
	atMs: number;
	storeCommits: boolean;
	/** Queue mode's Redis design: the kill falls instead right before this step of a workflow on the process, the first time one reaches it. */
	atStep?: RecipeStep;
}

/**
 * Queue mode's designs with Redis (redisRecipe.ts): today's, whose records the redelivery
 * workflow delivers again, and the old one, a counter alone.
 */
export type RedisRecipe = 'records' | 'counter';

/**
 * A point between two steps of the Redis design's workflows, named by the step after it: Keep
 * Until Decided, Count Deliveries' INCR and its EXPIRE, First Delivery? (then Create, or Sent or
 * Being Sent), Forget Record, Clear Counter, and the redelivery's Forget Delivered Record after
 * its POST.
 */
export type RecipeStep = 'keep' | 'incr' | 'expire' | 'decide' | 'forget' | 'clear' | 'redeliveredDel';

/** How long n8n takes to serve webhooks again after a kill (test:peak's crash measured 5 s). */
export const RESTART_MS = 5000;

/** One life of a process: from its start, or its start again after a kill, to its next kill. */
export interface Life {
	process: number;
	life: number;
}

/** A method of the sender's own code that throws at its `call`th call in the case. */
export interface CodeFault {
	method: string;
	call: number;
}

export interface SimulationCase {
	processes: number;
	deliveries: Delivery[];
	answers: Answer[];
	storeFaults: StoreFault[];
	storeDelays: StoreDelay[];
	codeFaults: CodeFault[];
	kills: Kill[];
	/** Each process's credential's Max Requests per Second (0: not set). */
	paces: number[];
	/** The largest body the service takes (413 beyond it): at least one large order's, so that every transaction fits alone. */
	entityLimitBytes: number;
	/** n8n's workflow timeout (Settings › Timeout Workflow), when set: every execution is cancelled that long after its start. */
	workflowTimeoutMs?: number;
	/**
	 * n8n's sweep (a Schedule Trigger workflow retrying the shop workflow's failed and crashed
	 * executions through n8n's public API, as the README's example): first `firstAtMs` into the case, then every
	 * `everyMs`.
	 */
	sweep: { firstAtMs: number; everyMs: number };
	/**
	 * On two processes or more (queue mode), the design may be the Redis recipe instead of the
	 * sweep: one order per delivery, each keyed, and the sweep's first minute the redelivery's.
	 */
	redisRecipe?: RedisRecipe;
	/**
	 * How a queue-mode worker applies the workflow timeout in the Redis design: n8n 2.8.4 checks it
	 * as each node starts (Create runs to its end, the next node is cancelled); 2.41.1 also cancels
	 * the running execution when it passes, as a main process does. n8n stores both as canceled;
	 * 2.41.1 even with "cancelled manually".
	 */
	workerTimeout?: 'atNextNode' | 'cancels';
	/** Seeds the package's `Math.random` (the gate's spread, the store's round delays). */
	randomSeed: number;
	/** The executions run as `n8n execute` runs them (mode 'cli'), each waiting for its keys' first round. */
	commandLine: boolean;
}

/** One transaction as the service received it. */
export interface Carried {
	delivery: number;
	item: number;
	order: string;
}

export interface RequestRecord {
	number: number;
	process: number;
	/** The life of the process that sent it: a process started again knows nothing of its earlier life's requests. */
	life: number;
	/** A kill took its process before the answer came back: the process never learned what the service did. */
	lostAtKill?: boolean;
	carried: Carried[];
	/** The body's size: after a refusal, only a small probe (or one transaction alone) may go. */
	bytes: number;
	answer: Answer;
	sentAtMs: number;
	answeredAtMs?: number;
}

/** The order an entry of n8n's store is about: a key's (of any generation), or a "sent", "free" or "freed" mark's. */
export const orderOfEntry = (entry: string) => entry.replace(/^(sent|key|free|freed)(#\d+)? /, '');

/** What happened, as the checks read it. */
export class CaseRecord {
	readonly requests: RequestRecord[] = [];

	/** How often the service queued each order (keyed or not), and each delivery's item. */
	readonly queuedOrders = new Map<string, number>();

	readonly queuedItems = new Map<string, number>();

	/**
	 * The documented limit of n8n's store across processes (docs/behaviour.md, Limits): orders
	 * whose entry a write over a row another process changed since its read did flip (erased
	 * again, or brought back), or that two such calls both recorded as new.
	 */
	readonly overwrittenOrders = new Set<string>();

	/**
	 * Of those, orders whose entry (a key's "free" mark, say) a call read as missing while such a
	 * write had erased it, before the confirmation rounds wrote it again, or for good where the
	 * write outlasted them. An entry such a write brought back is not counted: a give-back never
	 * removes a key, so none may read as taken after it.
	 */
	readonly erasedReadOrders = new Set<string>();

	/** A third documented limit: orders whose entry another process's removal round took (`StoreRow.noteRemovedOthers`). */
	readonly removedOrders = new Set<string>();

	/**
	 * The other documented limit: orders whose "sent" mark, recorded by another process only to
	 * read the store while the service had not queued the order, a process found.
	 */
	readonly readMarkOrders = new Set<string>();

	/** The same of a life a kill ended before it removed its read mark again (docs/behaviour.md, Deduplication Key). */
	readonly killedReadMarkOrders = new Set<string>();

	/**
	 * Orders whose key a recording call of n8n's store wrote and then failed to confirm (its answer
	 * lost): the node cannot tell its own key from an earlier delivery's (docs/behaviour.md, Deduplication Key).
	 */
	readonly lostAnswerOrders = new Set<string>();

	/**
	 * Per life of a process (`process/life`), the orders whose key a claim began to record as their
	 * request was to leave: a kill before it left leaves them unknown (docs/behaviour.md, Limits).
	 */
	readonly claimsBegun = new Map<string, Set<string>>();

	/** Each kill: the process and the life it ended. */
	readonly kills: Array<Life & { atMs: number; atStep?: RecipeStep; order?: string }> = [];

	storeCalls = 0;

	/** Each store call's span on the clock, from its start to its end. */
	readonly storeSpans: Array<{ process: number; startMs: number; endMs: number }> = [];

	queue(carried: Carried): void {
		this.queuedOrders.set(carried.order, (this.queuedOrders.get(carried.order) ?? 0) + 1);
		const item = `${carried.delivery}:${carried.item}`;
		this.queuedItems.set(item, (this.queuedItems.get(item) ?? 0) + 1);
	}

	requestsCarrying(delivery: number, item: number): RequestRecord[] {
		return this.requests.filter((request) => request.carried.some((carried) => carried.delivery === delivery && carried.item === item));
	}
}
