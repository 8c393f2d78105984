/**
 * The model of n8n's deduplication store: one row per node, read whole at a call's start and
 * written whole at its end, with no lock, so that calls of two processes that overlap lose one's
 * change, as n8n's do. Each call settles when fast-check's scheduler says; a kill ends a process's
 * life, and its calls under way commit then or never, and never answer.
 */
import type { Scheduler } from 'fast-check';

import type { CaseRecord, Life, StoreDelay, StoreFault } from './model';
import { orderOfEntry } from './model';

/** `npm run test:simulate -- --trace`: every store call, for reading a replayed case. */
const tracing = process.env.SIMULATION_TRACE === '1';

export class StoreRow {
	entries: string[] = [];

	private version = 0;

	constructor(
		private readonly record: CaseRecord,
		private readonly scheduler: Scheduler,
		private readonly faults: readonly StoreFault[],
		private readonly delays: readonly StoreDelay[],
		/** Whether faults strike and the scheduler decides when the call ends (the redelivery after the case runs without, its calls ending at once). */
		private readonly faulty: () => boolean,
	) {}

	/** Which process's call last added each entry, and whether the service had queued its order then. */
	private readonly addedBy = new Map<string, Life & { orderQueued: boolean }>();

	/** The processes whose calls recorded each entry since it was last added, found there or not: each relies on it. */
	private readonly recordedBy = new Map<string, Set<number>>();

	/** The lives a kill ended: their calls never return. */
	private readonly ended = new Set<string>();

	/** Entries a write over a changed row erased, until a later write has them again. */
	private readonly erased = new Set<string>();

	/** The calls that read the row and wait to write it, each told if a kill ends its life first: whether the write committed. */
	private readonly writing = new Set<{ caller: Life; killed: (commits: boolean) => void }>();

	/** A call of n8n's `checkProcessedAndRecord` (mode entries) or `removeProcessed` by a process's life. */
	async call(caller: Life, kind: 'record' | 'remove', keys: readonly string[], maxEntries: number): Promise<string[]> {
		const { process } = caller;
		if (this.hasEnded(caller)) return await never();
		const number = ++this.record.storeCalls;
		const span = { process, startMs: Date.now(), endMs: Date.now() };
		this.record.storeSpans.push(span);
		try {
			const delayMs = this.faulty() ? this.delays.find((candidate) => candidate.call === number)?.ms : undefined;
			if (delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, delayMs));
			if (this.hasEnded(caller)) return await never();
			return await this.readAndWrite(number, caller, kind, keys, maxEntries);
		} finally {
			span.endMs = Date.now();
		}
	}

	/** A kill ends the life: each of its calls waiting to write commits now or never, and none answers. */
	kill(caller: Life, commits: boolean): void {
		this.ended.add(`${caller.process}/${caller.life}`);
		for (const call of [...this.writing]) if (call.caller.process === caller.process && call.caller.life === caller.life) call.killed(commits);
	}

	private hasEnded({ process, life }: Life): boolean {
		return this.ended.has(`${process}/${life}`);
	}

	private async readAndWrite(number: number, caller: Life, kind: 'record' | 'remove', keys: readonly string[], maxEntries: number): Promise<string[]> {
		const { process } = caller;
		const fault = this.faulty() ? this.faults.find((candidate) => candidate.call === number) : undefined;
		const read = [...this.entries];
		const readVersion = this.version;
		const missingAtRead = keys.filter((key) => this.erased.has(key));
		let commitsAtKill: boolean | undefined;
		let wake = () => {};
		const killed = new Promise<void>((resolve) => (wake = resolve));
		const call = { caller, killed: (commits: boolean) => ((commitsAtKill = commits), wake()) };
		this.writing.add(call);
		await Promise.race([killed, this.faulty() ? this.scheduler.schedule(Promise.resolve(), `store call ${number} (${kind})`) : Promise.resolve()]);
		this.writing.delete(call);
		if (commitsAtKill === false) return await never();
		if (fault?.when === 'beforeWrite' && commitsAtKill === undefined) throw new Error(`the store failed (call ${number})`);
		const known = new Set(read);
		const recordedBefore = keys.filter((key) => known.has(key));
		// Sets, not lists, for the model's own work: a bulk's 250 keys against a row of thousands held the thread for 100 ms of a step.
		const gone = new Set(keys);
		const written = kind === 'remove' ? read.filter((entry) => !gone.has(entry)) : [...read, ...[...gone].filter((key) => !known.has(key))].slice(-maxEntries);
		if (this.version !== readVersion) this.noteStale(read, written, kind === 'record' ? keys : []);
		if (kind === 'record') for (const key of missingAtRead) if (!known.has(key)) this.record.erasedReadOrders.add(orderOfEntry(key));
		for (const entry of written) this.erased.delete(entry);
		if (kind === 'remove') this.noteRemovedOthers(process, read, keys);
		this.noteReadMarks(caller, recordedBefore);
		for (const key of written) if (!known.has(key)) this.addedBy.set(key, { ...caller, orderQueued: this.record.queuedOrders.has(orderOfEntry(key)) });
		this.noteRecorders(process, kind, keys, known);
		this.entries = written;
		this.version++;
		if (tracing) console.log(`store ${number} p${process} ${kind} [${keys.join(', ')}] before: [${recordedBefore.join(', ')}] ${commitsAtKill === true ? 'killed' : (fault?.when ?? '')} -> [${written.join(', ')}]`);
		if (commitsAtKill === true) return await never();
		if (fault?.when === 'afterWrite') {
			if (kind === 'record') for (const key of keys) this.record.lostAnswerOrders.add(orderOfEntry(key));
			throw new Error(`the store's answer was lost (call ${number})`);
		}
		return recordedBefore;
	}

	/**
	 * n8n's store offers no way to read an entry without writing it, so a process reads a "sent"
	 * mark by recording it and removes it again where it was new: another process's reading
	 * meanwhile finds it, as if the order had been sent, and so does every later reading where a
	 * kill ended the process before it removed the mark. Only a mark recorded while the service
	 * had not queued its order misleads.
	 */
	private noteReadMarks(caller: Life, recordedBefore: readonly string[]): void {
		for (const entry of recordedBefore) {
			const added = this.addedBy.get(entry);
			if (!/^sent(#\d+)? /.test(entry) || added === undefined || added.orderQueued) continue;
			if (this.hasEnded(added)) this.record.killedReadMarkOrders.add(orderOfEntry(entry));
			else if (added.process !== caller.process) this.record.readMarkOrders.add(orderOfEntry(entry));
		}
	}

	/**
	 * A removal of a mark written only to read it (keyRounds.ts) cannot tell whose entry it
	 * removes: where another process recorded the same entry meanwhile (a key's release, or its
	 * own reading), finding it there or not, that process's entry goes too.
	 */
	private noteRemovedOthers(process: number, read: readonly string[], removed: readonly string[]): void {
		const known = new Set(read);
		for (const entry of removed) if (known.has(entry) && [...(this.recordedBy.get(entry) ?? [])].some((other) => other !== process)) this.record.removedOrders.add(orderOfEntry(entry));
	}

	private noteRecorders(process: number, kind: 'record' | 'remove', keys: readonly string[], known: ReadonlySet<string>): void {
		for (const key of keys) {
			if (kind === 'remove') this.recordedBy.delete(key);
			else if (!known.has(key)) this.recordedBy.set(key, new Set([process]));
			else this.recordedBy.set(key, (this.recordedBy.get(key) ?? new Set<number>()).add(process));
		}
	}

	/**
	 * A write over a row another call changed since this one read it flips the entries changed
	 * meanwhile (erases one added, brings back one removed), and a key it records as new may
	 * have been recorded as new by the other call too: only those orders are the store's limit.
	 */
	private noteStale(read: readonly string[], written: readonly string[], recorded: readonly string[]): void {
		const now = new Set(this.entries);
		const before = new Set(read);
		const after = new Set(written);
		const erased = this.entries.filter((entry) => !before.has(entry) && !after.has(entry));
		const broughtBack = written.filter((entry) => !now.has(entry) && before.has(entry));
		const bothNew = recorded.filter((entry) => !before.has(entry) && now.has(entry));
		for (const entry of [...erased, ...broughtBack, ...bothNew]) this.record.overwrittenOrders.add(orderOfEntry(entry));
		for (const entry of erased) this.erased.add(entry);
	}
}

/** What a killed process waits for: nothing ever comes back. */
export const never = async <T>(): Promise<T> => await new Promise<T>(() => {});
