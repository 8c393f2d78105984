/**
 * The shop's side: each order is POSTed on its own to a workflow's webhook, as shops deliver
 * them, and each POST is timed from sending to the end of n8n's answer (the webhook responds
 * immediately, so that is what the shop waits for).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ShopOrder {
	id: string;
	email: string;
	total: number;
}

/** One delivery planned `atMs` after the plan starts. */
export interface PlannedDelivery {
	atMs: number;
	order: ShopOrder;
}

export interface Delivery {
	orderId: string;
	/** When the POST was sent (performance.now()). */
	sentAtMs: number;
	latencyMs: number;
	/** What went wrong when n8n did not answer 200. */
	problem?: string;
}

/** Generous: on two busy cores a webhook can take seconds, and a slow answer is a figure, not a failure. */
const ANSWER_LIMIT_MS = 60_000;

export function shopOrders(prefix: string, count: number): ShopOrder[] {
	return Array.from({ length: count }, (_, index) => ({
		id: `${prefix}-${index + 1}`,
		email: `${prefix.toLowerCase()}-${index + 1}@example.com`,
		total: 10 + (index % 90),
	}));
}

/** Every order at the same moment, in the order given (repeat an order to deliver it twice at once). */
export const atOnce = (orders: ShopOrder[]): PlannedDelivery[] => orders.map((order) => ({ atMs: 0, order }));

async function post(url: string, order: ShopOrder): Promise<Delivery> {
	const started = performance.now();
	try {
		const response = await fetch(url, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: JSON.stringify(order),
			signal: AbortSignal.timeout(ANSWER_LIMIT_MS),
		});
		const text = await response.text();
		const latencyMs = performance.now() - started;
		const delivery = { orderId: order.id, sentAtMs: started, latencyMs };
		return response.status === 200 ? delivery : { ...delivery, problem: `HTTP ${response.status}: ${text.slice(0, 200)}` };
	} catch (error) {
		return { orderId: order.id, sentAtMs: started, latencyMs: performance.now() - started, problem: String(error) };
	}
}

/**
 * Sends each delivery at its planned time, measured from the start (not from the previous one,
 * so a slow moment does not shift the rest), and resolves when every POST has its answer.
 */
export async function deliverPlan(url: string, plan: PlannedDelivery[]): Promise<Delivery[]> {
	const start = performance.now();
	const sorted = [...plan].sort((a, b) => a.atMs - b.atMs);
	const posts: Array<Promise<Delivery>> = [];
	for (const { atMs, order } of sorted) {
		const wait = start + atMs - performance.now();
		if (wait > 0) await sleep(wait);
		posts.push(post(url, order));
	}
	return await Promise.all(posts);
}

const WEBHOOK_READY_LIMIT_MS = 120_000;

/**
 * POSTs `order` until n8n answers 200: after a start its webhooks come up after its editor, and
 * n8n 2.41.1 answers "not registered" for a moment after a workflow is published.
 */
export async function untilWebhookServes(url: string, order: ShopOrder): Promise<void> {
	const deadline = Date.now() + WEBHOOK_READY_LIMIT_MS;
	for (;;) {
		const [delivery] = await deliverPlan(url, atOnce([order]));
		if (delivery.problem === undefined) return;
		if (Date.now() > deadline) throw new Error(`The webhook ${url} did not serve within ${WEBHOOK_READY_LIMIT_MS / 1000} s: ${delivery.problem}`);
		await sleep(500);
	}
}
