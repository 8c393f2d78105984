import { useServiceDouble } from '../harness/double';

/** The per-order refusals the peak-load test relies on must refuse exactly the orders named, and only while named. */
describe('transactions › service double: refusals by order', () => {
	const { double } = useServiceDouble();
	const transaction = (orderId: string) => ({ type: 1, contact: { id: 1001 }, content: { 'order.id': orderId, 'order.total': 1 } });
	const post = async (...orderIds: string[]) => {
		const response = await fetch(`${double().baseUrl}/transactions`, {
			method: 'POST',
			headers: { Authorization: `Basic ${Buffer.from(double().apiKey).toString('base64')}`, 'Content-Type': 'application/json' },
			body: JSON.stringify(orderIds.map(transaction)),
		});
		return { status: response.status, text: await response.text() };
	};

	it('answers 503 to every request carrying an unavailable order and queues nothing of it', async () => {
		double().faults.unavailableForOrders.add('O-2');
		expect((await post('O-1', 'O-2')).status).toBe(503);
		expect((await post('O-2')).status).toBe(503);
		expect((await post('O-1')).status).toBe(200);
		double().faults.reset();
		expect((await post('O-2')).status).toBe(200);
		expect(double().transactions.queuedOrderIds()).toEqual(['O-1', 'O-2']);
	});

	it('reports a not-queued order as queued: false and queues the others of its request', async () => {
		double().faults.notQueuedOrders.add('O-2');
		const answer = JSON.parse((await post('O-1', 'O-2')).text) as { reports: Array<{ queued: boolean; message?: string }> };
		expect(answer.reports.map((report) => report.queued)).toEqual([true, false]);
		expect(answer.reports[1].message).toBe('The transaction could not be queued now.');
		expect(double().transactions.queuedOrderIds()).toEqual(['O-1']);
	});
});
