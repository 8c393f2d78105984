/**
 * The model of the Redis that queue mode's shop workflow keeps its counters and records in:
 * strings with a time to live on jest's clock. Redis itself always answers, and each command is
 * atomic and takes no time (a real one answers in well under a millisecond); what the simulation
 * searches is a worker killed between two of the workflow's commands, not Redis failing.
 */

/** `npm run test:simulate -- --trace`: every command, for reading a replayed case. */
const tracing = process.env.SIMULATION_TRACE === '1';

export class RedisModel {
	private readonly values = new Map<string, { value: string; expiresAtMs?: number }>();

	constructor(
		/** When the case began, for the trace. */
		private readonly startedAtMs: number,
	) {}

	/** SET with EX, as the Redis node's Set with Expire does. */
	set(key: string, value: string, ttlSeconds: number): void {
		this.values.set(key, { value, expiresAtMs: Date.now() + ttlSeconds * 1000 });
		this.trace(`SET ${key} EX ${ttlSeconds}`);
	}

	/** INCR: a missing or lapsed key counts from 0, and keeps no time to live of its own. */
	incr(key: string): number {
		const count = Number(this.live(key)?.value ?? 0) + 1;
		this.values.set(key, { value: String(count), expiresAtMs: this.live(key)?.expiresAtMs });
		this.trace(`INCR ${key} -> ${count}`);
		return count;
	}

	expire(key: string, ttlSeconds: number): void {
		const entry = this.live(key);
		if (entry !== undefined) entry.expiresAtMs = Date.now() + ttlSeconds * 1000;
		this.trace(`EXPIRE ${key} ${ttlSeconds}`);
	}

	/** GET: the value, or null where the key is missing or lapsed. */
	get(key: string): string | null {
		const value = this.live(key)?.value ?? null;
		this.trace(`GET ${key} -> ${value}`);
		return value;
	}

	del(key: string): void {
		this.values.delete(key);
		this.trace(`DEL ${key}`);
	}

	/** KEYS `prefix`* with their values, as the Redis node's Keys with Get Values does. */
	keys(prefix: string): Array<[string, string]> {
		return [...this.values.keys()].filter((key) => key.startsWith(prefix)).flatMap((key) => {
			const entry = this.live(key);
			return entry === undefined ? [] : [[key, entry.value] as [string, string]];
		});
	}

	private live(key: string): { value: string; expiresAtMs?: number } | undefined {
		const entry = this.values.get(key);
		if (entry?.expiresAtMs !== undefined && entry.expiresAtMs <= Date.now()) {
			this.values.delete(key);
			return undefined;
		}
		return entry;
	}

	/** Notes a line in the trace: a command, or what the workflows made of one. */
	trace(command: string): void {
		if (tracing) console.log(`redis at ${Date.now() - this.startedAtMs} ms: ${command}`);
	}
}
