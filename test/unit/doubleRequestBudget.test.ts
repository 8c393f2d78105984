/**
 * The double's account budget (test/double/budget.ts), which test:peak's rush runs against:
 * it must refuse beyond the burst, refill at the rate, cover every route and do nothing for a
 * refused request. The bucket's arithmetic runs on an injected clock; one real request per
 * route checks the wiring.
 */
import { RequestBudget, RETRY_AFTER_HTTP_DATE } from '../double/budget';
import { ServiceDouble } from '../double/server';

function budgetWithClock(settings: ConstructorParameters<typeof RequestBudget>[0]) {
	let nowMs = 0;
	const budget = new RequestBudget(settings, () => nowMs);
	return { budget, advance: (ms: number) => (nowMs += ms) };
}

describe('the double’s request budget', () => {
	it('lets a burst through, refuses beyond it with 429 and Retry-After 1, and refills at the rate', () => {
		const { budget, advance } = budgetWithClock({ rate: 4, burst: 4 });
		const burst = Array.from({ length: 5 }, () => budget.take());
		expect(burst.slice(0, 4)).toEqual([undefined, undefined, undefined, undefined]);
		expect(burst[4]).toMatchObject({ status: 429, headers: { 'Retry-After': '1' } });
		expect(burst[4]?.body).toContain('<error>');

		advance(250); // a quarter second at 4 per second: one token
		expect(budget.take()).toBeUndefined();
		expect(budget.take()?.status).toBe(429);

		advance(10_000); // a long pause refills no more than the burst
		expect(Array.from({ length: 5 }, () => budget.take()?.status ?? 200)).toEqual([200, 200, 200, 200, 429]);
		expect({ accepted: budget.accepted, refused: budget.refused }).toEqual({ accepted: 9, refused: 3 });
	});

	it('sends the Retry-After it is given, or none', () => {
		const other = budgetWithClock({ rate: 1, burst: 1, retryAfter: '3' }).budget;
		other.take();
		expect(other.take()?.headers?.['Retry-After']).toBe('3');
		const none = budgetWithClock({ rate: 1, burst: 1, retryAfter: undefined }).budget;
		none.take();
		expect(none.take()?.headers?.['Retry-After']).toBeUndefined();
	});

	it('refuses with 503 and a Retry-After date a second on, where a flow’s account answers so', () => {
		const gateway = budgetWithClock({ rate: 1, burst: 1, status: 503, retryAfter: RETRY_AFTER_HTTP_DATE }).budget;
		gateway.take();
		const before = Date.now();
		const refusal = gateway.take();

		expect(refusal?.status).toBe(503);
		const comeBackMs = Date.parse(String(refusal?.headers?.['Retry-After']));
		// An HTTP date counts whole seconds.
		expect(comeBackMs).toBeGreaterThan(before);
		expect(comeBackMs).toBeLessThanOrEqual(Date.now() + 1000);
	});

	it('covers every route of the account and queues nothing for a refused request', async () => {
		const double = await ServiceDouble.start({ maxLifetimeMs: 30_000 });
		try {
			double.budget = new RequestBudget({ rate: 0.001, burst: 2 });
			const authorization = `Basic ${Buffer.from(double.apiKey).toString('base64')}`;
			const transaction = [{ type: 1, contact: { id: 1001 }, content: { 'order.id': 'O-1' } }];
			const post = async () =>
				await fetch(`${double.baseUrl}/transactions`, {
					method: 'POST',
					headers: { authorization, 'content-type': 'application/json' },
					body: JSON.stringify(transaction),
				});
			expect((await post()).status).toBe(200);
			expect((await fetch(`${double.baseUrl}/reports/blocks/count`, { headers: { authorization } })).status).toBe(200);
			const refused = await post();
			expect(refused.status).toBe(429);
			expect(refused.headers.get('retry-after')).toBe('1');
			expect((await fetch(`${double.baseUrl}/reports/blocks/count`, { headers: { authorization } })).status).toBe(429);
			expect(double.transactions.queuedOrderIds()).toEqual(['O-1']);
			expect(double.requests.map((request) => request.status)).toEqual([200, 200, 429, 429]);
		} finally {
			await double.close();
		}
	});

	it('is off unless set', async () => {
		const double = await ServiceDouble.start({ maxLifetimeMs: 30_000 });
		try {
			const authorization = `Basic ${Buffer.from(double.apiKey).toString('base64')}`;
			const statuses = await Promise.all(
				Array.from({ length: 20 }, async () => (await fetch(`${double.baseUrl}/reports/blocks/count`, { headers: { authorization } })).status),
			);
			expect(new Set(statuses)).toEqual(new Set([200]));
		} finally {
			await double.close();
		}
	});
});
