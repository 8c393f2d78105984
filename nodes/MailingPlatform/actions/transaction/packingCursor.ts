/**
 * Where packing one execution's transactions has got to, between the requests that take its
 * bodies (sendJob.ts): packing itself is packing.ts.
 */
import type { Body, PackingLimits, Refusal } from './packing';
import { packBodies } from './packing';

/**
 * Where packing one execution's transactions has got to: the order still to send, the next
 * position, and a body packed to join a request that it did not join, held for the next request
 * it leads.
 */
export class PackingCursor {
	private from = 0;

	private bodies: Generator<Body | Refusal> | undefined;

	private held: Body | undefined;

	private readonly limits: PackingLimits;

	constructor(
		private readonly transactions: ReadonlyArray<unknown>,
		/** The item indexes to send; items taken out of a body (`without`) leave it. */
		private items: readonly number[],
		maxRequestBytes: number,
	) {
		this.limits = { limit: maxRequestBytes, maxBytes: maxRequestBytes };
	}

	get order(): readonly number[] {
		return this.items;
	}

	/** Whether packing has passed the last transaction with nothing held. */
	get passedAll(): boolean {
		return this.from >= this.items.length && this.held === undefined;
	}

	/** The item indexes a body carries. */
	itemsOf({ start, end }: Body): number[] {
		return this.items.slice(start, end);
	}

	/** The item indexes not yet taken: the held body's and those after it. */
	rest(): number[] {
		return this.items.slice(this.held?.start ?? this.from);
	}

	/**
	 * The next body within `room` bytes, or undefined. Leading a request, as much as the room
	 * takes (a transaction above it goes alone); joining one, only a body that holds all that is
	 * left, else that body is held. Each refusal on the way goes to `refused`, which answers
	 * whether to go on.
	 */
	next(room: number, leading: boolean, refused: (refusal: Refusal) => boolean): Body | undefined {
		if (this.held !== undefined) {
			if (this.held.bytes.length <= room && (leading || this.isLast(this.held))) return this.take(this.held);
			if (!leading) return undefined;
			// Packed for a larger room than the account now takes (a 413 taught it): packed again.
			this.rewind(this.held.start);
		}
		this.limits.limit = room;
		const bodies = (this.bodies ??= packBodies(this.transactions, this.items, this.from, this.limits));
		for (let next = bodies.next(); !next.done; next = bodies.next()) {
			this.from = next.value.end;
			if ('refusal' in next.value) {
				if (refused(next.value)) continue;
				return undefined;
			}
			if (leading || (this.isLast(next.value) && next.value.bytes.length <= room)) return this.take(next.value);
			this.held = next.value;
			return undefined;
		}
		return undefined;
	}

	/** Packs again from `position` on: a refused body goes again, a held one is packed for a smaller room. */
	rewind(position: number): void {
		this.from = position;
		this.bodies = undefined;
		this.held = undefined;
	}

	/** Takes the items of `removed` out of `body`, and answers it packed again without them (undefined when none is left). */
	without(body: Body, removed: ReadonlySet<number>): Body | undefined {
		const left = this.itemsOf(body).filter((itemIndex) => !removed.has(itemIndex));
		const end = body.start + left.length;
		this.items = [...this.items.slice(0, body.start), ...left, ...this.items.slice(body.end)];
		this.rewind(end);
		if (left.length === 0) return undefined;
		// Fewer transactions than the body carried: one body within its size.
		const [again] = packBodies(this.transactions, this.items.slice(0, end), body.start, { limit: body.bytes.length, maxBytes: this.limits.maxBytes });
		return again as Body;
	}

	private isLast(body: Body): boolean {
		return body.end === this.items.length;
	}

	private take(body: Body): Body {
		this.held = undefined;
		return body;
	}
}
