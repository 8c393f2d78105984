/**
 * The pace an account has shown this n8n process it takes, learned from the service's answers
 * alone (docs/behaviour.md, The Account's Requests): other processes sharing the account are
 * never seen, only their effect, the refusals. Before the first refusal there is no pace, so a
 * lone process is never slowed. A refusal lowers the pace to 0.7 of it; every accepted request
 * that the pace held back raises it by a little. Each process so keeps its own refusals rare, and
 * processes that know nothing of each other settle on shares of the account's budget.
 */

/** A refusal keeps this share of the pace (the first one: of the requests taken in the second before). */
export const DECREASE = 0.7;

/**
 * What each accepted request the pace held back adds, in requests per second: a process sending
 * at its pace gains 0.2% a second, so it takes about three minutes to regain a cut, and the
 * account refuses about one request per 150 / processes seconds once all have learned.
 */
export const INCREASE_PER_ACCEPTED = 0.002;

/** The slowest pace a process falls to: one request every 10 seconds. */
export const SLOWEST_PACE = 0.1;

/** The first lesson counts the requests the account took in this window before the refused one. */
const FIRST_LESSON_WINDOW_MS = 1000;

export class LearnedPace {
	/** Requests per second; undefined until a refusal taught one. */
	private pace: number | undefined;

	/** The account's rate the service declares (RateLimit-Policy): the learned pace never rises above it. */
	private declared = Number.POSITIVE_INFINITY;

	/** Starts of accepted requests in the last window, for the first lesson only. */
	private readonly recentAccepted: number[] = [];

	private lastRefusalMs = Number.NEGATIVE_INFINITY;

	/** A request sent after the last refusal has been accepted: until then, another refusal teaches nothing. */
	private acceptedSinceRefusal = false;

	/** Requests per second, or undefined while nothing was learned. */
	get perSecond(): number | undefined {
		return this.pace;
	}

	/** Whether a refusal is the latest news: the account has taken nothing sent since. */
	get awaitingAcceptance(): boolean {
		return this.lastRefusalMs > Number.NEGATIVE_INFINITY && !this.acceptedSinceRefusal;
	}

	/** The service declared the account's rate: a ceiling for the learned pace. */
	declare(perSecond: number): void {
		this.declared = perSecond;
		if (this.pace !== undefined) this.pace = this.bounded(this.pace);
	}

	/** The account took a request that started at `sentAtMs`; `heldBack` says whether the pace delayed its start. */
	accepted(sentAtMs: number, heldBack: boolean): void {
		const current = sentAtMs >= this.lastRefusalMs;
		if (current) this.acceptedSinceRefusal = true;
		if (this.pace === undefined) {
			this.recentAccepted.push(sentAtMs);
			while (this.recentAccepted[0] < sentAtMs - FIRST_LESSON_WINDOW_MS) this.recentAccepted.shift();
		} else if (current && heldBack) {
			// A pace that holds nothing back learns nothing about a faster one.
			this.pace = this.bounded(this.pace + INCREASE_PER_ACCEPTED);
		}
	}

	/**
	 * The account refused a request that started at `sentAtMs` (429, 503); `aboutRate` unless the
	 * refusal was an outage's. Whatever it meant, the next request may be refused as well.
	 */
	refused(sentAtMs: number, nowMs: number, aboutRate: boolean): void {
		if (aboutRate) this.learnFrom(sentAtMs);
		this.lastRefusalMs = nowMs;
		this.acceptedSinceRefusal = false;
	}

	/**
	 * A refusal teaches only after an acceptance: one of a request sent before the last refusal,
	 * or while nothing was taken since (a probe after a pause), says nothing new about the pace.
	 */
	private learnFrom(sentAtMs: number): void {
		if (this.pace !== undefined) {
			if (this.acceptedSinceRefusal && sentAtMs >= this.lastRefusalMs) this.pace = this.bounded(DECREASE * this.pace);
			return;
		}
		const taken = this.recentAccepted.filter((startMs) => startMs >= sentAtMs - FIRST_LESSON_WINDOW_MS && startMs < sentAtMs).length;
		if (taken === 0) return;
		this.pace = this.bounded(DECREASE * taken);
		this.recentAccepted.length = 0;
	}

	private bounded(pace: number): number {
		return Math.min(this.declared, Math.max(SLOWEST_PACE, pace));
	}
}
