import type { INodeParameters } from 'n8n-workflow';

import type { ServiceDouble } from '../double/server';
import { jsonMode, order } from './transactions';
import type { CredentialValues, NodeRunResult } from './workflow';
import { runNode } from './workflow';

/** Transaction › Create (JSON input) with the order id as Deduplication Key. */
export const keyedByOrder: INodeParameters = { ...jsonMode, options: { deduplicationKey: '={{ $json.content["order.id"] }}' } };

export const range = (count: number) => Array.from({ length: count }, (_, number) => number);

/** Each of orders A-0 to A-<count - 1> queued once. */
export const everyOnce = (count: number) => new Map(range(count).map((number) => [`A-${number}`, 1]));

/** How often the double queued each order. */
export function queuedCounts(double: ServiceDouble): Map<string, number> {
	const counts = new Map<string, number>();
	for (const id of double.transactions.queuedOrderIds()) counts.set(String(id), (counts.get(String(id)) ?? 0) + 1);
	return counts;
}

export interface Delivery {
	/** The registered node type that runs this delivery: the n8n process it reaches. */
	process?: string;
	onError?: 'continueErrorOutput';
	/** Create's Max Wait Seconds for this delivery. */
	maxWaitSeconds?: number;
}

/** One execution per order, all at once, as a webhook receives a shop's orders. */
export async function deliverAtOnce(
	credentials: CredentialValues,
	orderNumbers: number[],
	delivery: (index: number) => Delivery = () => ({}),
): Promise<NodeRunResult[]> {
	return await Promise.all(
		orderNumbers.map(async (number, index) => {
			const { process, onError, maxWaitSeconds } = delivery(index);
			const parameters = maxWaitSeconds === undefined ? keyedByOrder : { ...keyedByOrder, options: { ...(keyedByOrder.options as object), maxWaitSeconds } };
			return await runNode({ credentials, parameters, items: [order(number)], nodeType: process, onError });
		}),
	);
}

/** What each run's one item says: queued, skipped, refused (on the error output) or the node's error. */
export function outcomes(runs: NodeRunResult[]): string[] {
	return runs.map((run) => {
		if (run.error !== undefined) return `error: ${run.error.message}`;
		if (run.errorOutput.length > 0) return 'refused';
		return run.main[0].skipped === true ? 'skipped' : run.main[0].queued === true ? 'queued' : 'not queued';
	});
}
