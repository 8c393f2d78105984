/**
 * The pace an account has shown this n8n process it takes, learned from the service's answers
 * alone (docs/behaviour.md, The Account's Requests): other processes sharing the account are
 * never seen, only their effect, the refusals. Before the first refusal there is no pace, so a
 * lone process is never slowed. The first refusal's lesson is drawn once the account takes a
 * request sent after it, when the answers of the requests under way at the refusal are in (a
 * refusal often comes back sooner than an acceptance). A later refusal cuts the pace to 0.7 of
 * it. After a cut the pace climbs back along a cubic, as TCP CUBIC's window and the AWS SDKs'
 * adaptive retry do: fast at first, flat near the pace at the cut, then ever faster past it, in
 * search of a budget that grew. A pace not tested for two minutes (no refusal, nothing held back)
 * is forgotten.
 */

/** A cut keeps this share of the pace (the first one: of the rate the account showed it takes). */
const DECREASE = 0.7;

/**
 * The pace at the cut is regained in the time the cut pace takes to send this many requests, at
 * least `REGAIN_SECONDS.fewest` (a fast pace is not cut every few seconds) and at most
 * `REGAIN_SECONDS.most` (a process left alone on the account finds its budget within a minute).
 * Each process is so refused about once in 100 accepted requests where it sends 2.5 to 5 a
 * second, and once in 40 × its pace below.
 */
const REGAIN_REQUESTS = 100;
const REGAIN_SECONDS = { fewest: 20, most: 40 } as const;

/**
 * Each curve's time is drawn within this share either side, so that processes cut together do
 * not probe together: in step, they overrun the account together and are all refused.
 */
const REGAIN_SPREAD = 0.25;

/** Past the pace at the cut, the pace grows by 30% in this many seconds, 3.4 times in twice as many, 9 times in thrice. */
const PROBE_SECONDS = 15;

/**
 * A pace neither refused nor holding anything back for this long (or for two of its intervals,
 * where those are longer) is evidence of nothing: forgotten, so that it never slows a process
 * coming back to a quiet account. Google SRE's adaptive throttling forgets over the same window.
 */
const FORGET_AFTER_MS = 120_000;

/**
 * The slowest pace, one request in ten minutes: reached only by cuts, each after an accepted
 * request, so that any number of processes on a small account wait rather than being refused.
 */
const SLOWEST_PACE = 1 / 600;

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

export class LearnedPace {
	/** The pace at the last cut (the first lesson: the rate shown); undefined until a refusal taught one, or once forgotten. */
	private atCut: number | undefined;

	/** When the pace was last cut (or first learned), and how long after it the curve is back at `atCut`. */
	private cutAtMs = 0;

	private regainMs = 0;

	/** The account's rate the service declares (RateLimit-Policy): the learned pace never rises above it. */
	private declared = Number.POSITIVE_INFINITY;

	/** The latest refusal, or accepted request the pace held back: the pace was last tested then. */
	private testedAtMs = Number.NEGATIVE_INFINITY;

	/** Starts of accepted requests in the last window, for the first lesson only. */
	private readonly recentAccepted: number[] = [];

	/** The start of the refused request whose lesson waits for the account to take a request sent since. */
	private lessonPendingAtMs: number | undefined;

	private lastRefusalMs = Number.NEGATIVE_INFINITY;

	/** Refusals since the account last took a request sent after one. */
	private refusedInARow = 0;

	/** Requests per second at `nowMs`; undefined while nothing was learned, or once what was learned is forgotten. */
	perSecond(nowMs: number): number | undefined {
		if (this.atCut === undefined) return undefined;
		const pace = this.curve(nowMs);
		if (nowMs - this.testedAtMs > Math.max(FORGET_AFTER_MS, 2000 / pace)) this.atCut = undefined;
		return this.atCut === undefined ? undefined : pace;
	}

	/** Whether a refusal is the latest news: the account has taken nothing sent since. */
	get awaitingAcceptance(): boolean {
		return this.refusedInARow > 0;
	}

	/**
	 * Over how long the end of a pause should spread, so that processes refused together do not
	 * come back together: one interval of the pace (a second after a refusal before any pace),
	 * doubled for each further refusal in a row, as a crowd larger than the pace knows keeps
	 * refusing the probes: they wait longer instead.
	 */
	spreadMs(nowMs: number): number {
		const pace = this.perSecond(nowMs);
		const intervalMs = pace !== undefined ? 1000 / pace : this.refusedInARow > 0 ? 1000 : 0;
		return intervalMs * 2 ** Math.max(0, this.refusedInARow - 1);
	}

	/** The service declared the account's rate: a ceiling for the learned pace. */
	declare(perSecond: number): void {
		this.declared = perSecond;
	}

	/** The account took a request that started at `sentAtMs`; `heldBack` says whether the pace delayed its start. */
	accepted(sentAtMs: number, heldBack: boolean): void {
		const current = sentAtMs >= this.lastRefusalMs;
		if (current) this.refusedInARow = 0;
		if (this.atCut === undefined) {
			if (current && this.lessonPendingAtMs !== undefined) return this.learnFirstLesson(this.lessonPendingAtMs, sentAtMs);
			this.recentAccepted.push(sentAtMs);
			while (this.recentAccepted[0] < sentAtMs - FIRST_LESSON_WINDOW_MS) this.recentAccepted.shift();
		} else if (current && heldBack) {
			// Only a pace that held a request back was tested: one that holds nothing back says nothing of the account.
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
		this.refusedInARow++;
	}

	/**
	 * A refusal cuts the pace only after an acceptance: one of a request sent before the last
	 * refusal, or while nothing was taken since (a probe after a pause), says nothing new about the
	 * pace. The first waits for its lesson until the account takes a request sent after it.
	 */
	private learnFrom(sentAtMs: number, nowMs: number): void {
		const pace = this.perSecond(nowMs);
		if (pace === undefined) this.lessonPendingAtMs ??= sentAtMs;
		else if (this.refusedInARow === 0 && sentAtMs >= this.lastRefusalMs) this.startCurve(this.yielding(pace), nowMs);
		else this.testedAtMs = nowMs;
	}

	/**
	 * The pace a cut at `pace` leads back to: `pace`, or, cut again before it regained the pace at
	 * the last cut, halfway between `pace` and 0.7 of it, leaving room to the others (CUBIC's fast
	 * convergence).
	 */
	private yielding(pace: number): number {
		return this.atCut !== undefined && pace < this.atCut ? (pace * (1 + DECREASE)) / 2 : pace;
	}

	/**
	 * 0.7 of the rate the account showed it keeps before the refused request. Where it took nothing
	 * of this process in the second before, others keep it busy: it then showed only that it took
	 * the probe that started at `probeSentAtMs`, one request in the time since the refusal (at
	 * least a second, the shortest pause).
	 */
	private learnFirstLesson(refusedAtMs: number, probeSentAtMs: number): void {
		this.lessonPendingAtMs = undefined;
		this.startCurve(rateShown(this.recentAccepted, refusedAtMs) || 1000 / Math.max(1000, probeSentAtMs - refusedAtMs), probeSentAtMs);
		this.recentAccepted.length = 0;
	}

	/** A curve that starts at 0.7 of `atCut` at `nowMs`, its time to regain `atCut` drawn within the spread. */
	private startCurve(atCut: number, nowMs: number): void {
		this.atCut = Math.max(SLOWEST_PACE / DECREASE, atCut);
		const regainSeconds = Math.min(REGAIN_SECONDS.most, Math.max(REGAIN_SECONDS.fewest, REGAIN_REQUESTS / this.atCut));
		this.regainMs = regainSeconds * 1000 * (1 + REGAIN_SPREAD * (2 * Math.random() - 1));
		this.cutAtMs = nowMs;
		this.testedAtMs = nowMs;
	}

	/** The pace on the curve at `nowMs`: 0.7 of `atCut` at the cut, `atCut` after `regainMs`, 30% more `PROBE_SECONDS` later. */
	private curve(nowMs: number): number {
		const atCut = this.atCut ?? Number.POSITIVE_INFINITY;
		const sinceCutMs = nowMs - this.cutAtMs;
		const pace =
			sinceCutMs < this.regainMs
				? atCut * (1 - (1 - DECREASE) * (1 - sinceCutMs / this.regainMs) ** 3)
				: atCut * (1 + (1 - DECREASE) * ((sinceCutMs - this.regainMs) / (PROBE_SECONDS * 1000)) ** 3);
		return Math.min(this.declared, pace);
	}
}
