/**
 * The pace an account has shown this n8n process it takes, learned from the service's answers
 * alone (docs/behaviour.md, The Account's Requests): other processes sharing the account are
 * never seen, only their effect, the refusals. Before the first refusal there is no pace, so a
 * lone process is never slowed. The first refusal's lesson is drawn once the account takes a
 * request sent after it, when the answers of the requests under way at the refusal are in (a
 * refusal often comes back sooner than an acceptance). A later refusal lowers the pace to 0.7 of
 * it; every accepted request that the pace held back raises it by a little. Each process so keeps
 * its own refusals rare, and processes that know nothing of each other settle on shares of the
 * account's budget.
 */

/** A refusal keeps this share of the pace (the first one: of the rate the account showed it takes). */
const DECREASE = 0.7;

/**
 * What each accepted request the pace held back adds, in requests per second: a process sending
 * at its pace gains 0.2% a second, so it takes about three minutes to regain a cut, and the
 * account refuses about one request per 150 / processes seconds once all have learned.
 */
const INCREASE_PER_ACCEPTED = 0.002;

/** The slowest pace a process falls to: one request every 10 seconds. */
const SLOWEST_PACE = 0.1;

/**
 * The first lesson looks at the requests the account took in this window before the refused one,
 * the most recent evidence: over a longer span it could count what the account took before its
 * budget changed, or before others began to share it (a worker that ran alone, a service that
 * tightened its limit). Looking back 2 s, test:peak's rush, whose budget starts with it, taught
 * 2.5 times the budget.
 */
const FIRST_LESSON_WINDOW_MS = 1000;

/**
 * The burst the first lesson assumes the account allows, in seconds of its rate: a token bucket
 * that holds one second's requests, the common setting. With it, no span of W seconds holds more
 * than rate × (W + 1) accepted requests, so the most any span shows is a rate the account keeps.
 */
const BURST_SECONDS = 1;

/**
 * The rate the account showed it keeps before `refusedAtMs`, from the starts of the requests it
 * took: the most that any span of the window ending at the refusal shows once its burst is taken
 * out. Nothing where it took nothing in the window: the refusal then says nothing of this
 * process's rate.
 */
function rateShown(acceptedStarts: readonly number[], refusedAtMs: number): number {
	const before = acceptedStarts.filter((startMs) => startMs < refusedAtMs && startMs >= refusedAtMs - FIRST_LESSON_WINDOW_MS).sort((a, b) => b - a);
	return before.reduce((most, startMs, index) => Math.max(most, (index + 1) / (BURST_SECONDS + (refusedAtMs - startMs) / 1000)), 0);
}

/**
 * A pace neither refused nor holding a request back for this long is evidence of nothing now:
 * forgotten, so that it never slows a process coming back to a quiet account (Google SRE's
 * adaptive throttling forgets over the same window). A refusal older than this, whose lesson
 * still waits for an acceptance, teaches nothing either.
 */
const FORGET_AFTER_MS = 120_000;

export class LearnedPace {
	/** Requests per second; undefined until a refusal taught one. */
	private pace: number | undefined;

	/** The account's rate the service declares (RateLimit-Policy): the learned pace never rises above it. */
	private declared = Number.POSITIVE_INFINITY;

	/** Starts of accepted requests in the last window, for the first lesson only. */
	private readonly recentAccepted: number[] = [];

	/** The start of the refused request whose lesson waits for the account to take a request sent since. */
	private lessonPendingAtMs: number | undefined;

	private lastRefusalMs = Number.NEGATIVE_INFINITY;

	/** A request sent after the last refusal has been accepted: until then, another refusal teaches nothing. */
	private acceptedSinceRefusal = false;

	/** When the pace was last taught, or held a request back that the account took. */
	private testedAtMs = Number.NEGATIVE_INFINITY;

	/** Requests per second at `nowMs`, or undefined while nothing was learned or once it is forgotten. */
	perSecond(nowMs: number): number | undefined {
		if (this.pace !== undefined && nowMs - this.testedAtMs > FORGET_AFTER_MS) this.pace = undefined;
		return this.pace;
	}

	/** Whether a refusal is the latest news: the account has taken nothing sent since. */
	get awaitingAcceptance(): boolean {
		return this.lastRefusalMs > Number.NEGATIVE_INFINITY && !this.acceptedSinceRefusal;
	}

	/** Whether that refusal came at `sinceMs` or after. */
	awaitingAcceptanceSince(sinceMs: number): boolean {
		return this.awaitingAcceptance && this.lastRefusalMs >= sinceMs;
	}

	/** The service declared the account's rate: a ceiling for the learned pace. */
	declare(perSecond: number): void {
		this.declared = perSecond;
		if (this.pace !== undefined) this.pace = this.bounded(this.pace);
	}

	/**
	 * The account took a request that started at `sentAtMs`; `heldBack` says whether the pace
	 * delayed its start, `allowedAtMs` when the gate would first have let it start.
	 */
	accepted(sentAtMs: number, heldBack: boolean, allowedAtMs: number): void {
		const current = sentAtMs >= this.lastRefusalMs;
		if (current) this.acceptedSinceRefusal = true;
		if (this.pace === undefined) {
			if (current && this.lessonPendingAtMs !== undefined) return this.learnFirstLesson(this.lessonPendingAtMs, Math.min(sentAtMs, allowedAtMs), sentAtMs);
			this.recentAccepted.push(sentAtMs);
			while (this.recentAccepted[0] < sentAtMs - FIRST_LESSON_WINDOW_MS) this.recentAccepted.shift();
		} else if (current && heldBack) {
			// A pace that holds nothing back learns nothing about a faster one.
			this.pace = this.bounded(this.pace + INCREASE_PER_ACCEPTED);
			this.testedAtMs = sentAtMs;
		}
	}

	/**
	 * The account refused a request that started at `sentAtMs` (429, 503); `aboutRate` unless the
	 * refusal was an outage's. Whatever it meant, the next request may be refused as well.
	 */
	refused(sentAtMs: number, nowMs: number, aboutRate: boolean): void {
		if (aboutRate) this.learnFrom(sentAtMs, nowMs);
		this.lastRefusalMs = nowMs;
		this.acceptedSinceRefusal = false;
	}

	/**
	 * A refusal teaches only after an acceptance: one of a request sent before the last refusal,
	 * or while nothing was taken since (a probe after a pause), says nothing new about the pace.
	 * The first waits for its lesson until the account takes a request sent after it.
	 */
	private learnFrom(sentAtMs: number, nowMs: number): void {
		const pace = this.perSecond(nowMs);
		if (pace === undefined) this.lessonPendingAtMs ??= sentAtMs;
		else if (this.acceptedSinceRefusal && sentAtMs >= this.lastRefusalMs) {
			this.pace = this.bounded(DECREASE * pace);
			this.testedAtMs = nowMs;
		}
	}

	/**
	 * 0.7 of the rate the account showed it keeps before the refused request. Where it took nothing
	 * of this process in the second before, others keep it busy: it then showed only that it took
	 * the probe, one request in the time from the refusal to the moment the probe could start (at
	 * least a second, the shortest pause). A probe that started later had nothing to send before:
	 * that idle time says nothing of the account (a timeout that cancelled the waiting
	 * executions, a retry a minute later, taught a tenth of the budget).
	 */
	private learnFirstLesson(refusedAtMs: number, probeAllowedAtMs: number, probeSentAtMs: number): void {
		this.lessonPendingAtMs = undefined;
		const shown = rateShown(this.recentAccepted, refusedAtMs) || 1000 / Math.max(1000, probeAllowedAtMs - refusedAtMs);
		this.recentAccepted.length = 0;
		if (probeSentAtMs - refusedAtMs > FORGET_AFTER_MS) return;
		this.pace = this.bounded(DECREASE * shown);
		this.testedAtMs = probeSentAtMs;
	}

	private bounded(pace: number): number {
		return Math.min(this.declared, Math.max(SLOWEST_PACE, pace));
	}
}
