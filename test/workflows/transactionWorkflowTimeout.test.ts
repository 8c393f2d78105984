import { useServiceDouble } from '../harness/double';
import { jsonMode, order } from '../harness/transactions';
import { runNode } from '../harness/workflow';

/**
 * n8n's workflow timeout counts from the execution's start, and on a busy n8n the nodes before
 * Create may take seconds of it. n8n's retry of an execution its timeout cancelled runs nothing
 * again, so Create must fail what it has not sent before that moment, as n8n counts it.
 */
describe("Transaction › Create and n8n's workflow timeout", () => {
	const { double, credentials } = useServiceDouble();

	it("stops waiting 5 s before n8n's timeout counted from the execution's start, not from its own", async () => {
		double().faults.failNext(1_000, 503, { retryAfter: '30', match: 'transactions' });
		// Timeout Workflow 20 s, of which the earlier nodes took 14: counted from Create's own start, it would wait Max Wait Seconds (10 s).
		const result = await runNode({
			credentials: credentials(),
			parameters: { ...jsonMode, options: { deduplicationKey: '={{ $json.content["order.id"] }}', maxWaitSeconds: 10 } },
			items: [order(0)],
			onError: 'continueRegularOutput',
			timeout: { seconds: 20, leftMs: 6_000 },
		});

		expect(result.main[0].error).toBe(
			"Not sent: it stopped waiting before the workflow's Timeout Workflow, which would cancel the execution (n8n's retry of a cancelled execution sends nothing) because the service answered 503 (unavailable) (item 0)",
		);
		expect(double().transactions.queuedOrderIds()).toEqual([]);
	});
});
