/**
 * The Deduplication Key option's items: each item's key as text, the items of one execution that
 * repeat a key, and the refusal of more keys than the history keeps. What becomes of the keys in
 * n8n's store is deduplication.ts's.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { thousands } from '../../helpers/numbers';
import { readerFor } from '../../helpers/parameters';
import { InputProblem, isEmpty } from '../../helpers/values';
import type { Outcome } from './results';

export const LABEL = 'Deduplication Key';

/** Each item's key as text; an empty key, or one that is not text or a number, is refused. */
export function keyReader(context: IExecuteFunctions): (itemIndex: number) => string {
	const read = readerFor<unknown>(context, 'options.deduplicationKey', '');
	return (itemIndex) => {
		const value = read(itemIndex);
		if (isEmpty(value)) {
			throw new InputProblem(
				`${LABEL} is empty, so the node cannot tell whether this transaction was sent before`,
				'Map a value that identifies the order, e.g. {{ $json.body.id }} behind a Webhook node, or remove the option.',
			);
		}
		if (typeof value !== 'string' && typeof value !== 'number') {
			throw new InputProblem(`${LABEL} must be text or a number, not ${Array.isArray(value) ? 'a list' : typeof value}`, 'Map one field that identifies the order, e.g. {{ $json.body.id }} behind a Webhook node.');
		}
		return String(value).trim();
	};
}

/** The items of `order` to send, and those skipped because an earlier item of this execution has their key. */
export function skipRepeatedKeys(keys: readonly string[], order: readonly number[]): { order: number[]; skipped: Outcome[] } {
	const firstItem = new Map<string, number>();
	const skipped: Outcome[] = [];
	const rest: number[] = [];
	for (const itemIndex of order) {
		const first = firstItem.get(keys[itemIndex]);
		if (first === undefined) {
			firstItem.set(keys[itemIndex], itemIndex);
			rest.push(itemIndex);
		} else skipped.push({ kind: 'skipped', itemIndexes: [itemIndex], reason: `Not sent: item ${first} of this execution has the same ${LABEL}` });
	}
	return { order: rest, skipped };
}

/** The Deduplication Key of every item (by item index; refused items have none) and how many keys the node remembers. */
export interface Deduplication {
	readonly keys: readonly string[];
	readonly historySize: number;
}

/** A refusal of every item when the history cannot keep all their keys: the first would be forgotten while the last are sent. */
export function beyondHistory({ historySize }: Deduplication, order: readonly number[]): Outcome | undefined {
	if (order.length <= historySize) return undefined;
	const problem = new InputProblem(
		`${thousands(order.length)} items have a ${LABEL}, more than Deduplication History Size keeps (${thousands(historySize)}): the first keys would be forgotten while the last are sent`,
		`Raise Deduplication History Size to at least ${thousands(order.length)}, or send fewer items per execution.`,
	);
	return { kind: 'refused', itemIndexes: order, problem };
}
