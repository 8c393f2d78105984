import { useN8nClock } from '../harness/clock';
import { useServiceDouble } from '../harness/double';
import { jsonMode, order } from '../harness/transactions';
import { runNode } from '../harness/workflow';

/**
 * n8n's Retry On Fail evaluates the node's expressions anew on each try, so a try can build an
 * item that the one before refused, or the other way round (an expression reading `$now`). Each
 * item still ends with exactly one outcome: the one of the try that reached the service.
 */
const retry = { retryOnFail: true, maxTries: 3, waitBetweenTries: 1 };
const SWITCH_AT = Date.parse('2026-03-01T00:00:00Z');
/** Order A-0's transaction while `$now` is before (or from) SWITCH_AT; text instead of a transaction otherwise. */
const a0Until = (relation: '<' | '>=') => ({
	...jsonMode,
	// One item per request, so that a failed request leaves the other item unsent.
	options: { maxRequestBytes: 1024 },
	transactionJson: `={{ $json.content["order.id"] === "A-0" && !($now.toMillis() ${relation} ${SWITCH_AT}) ? "not a transaction" : $json }}`,
});

describe('n8n’s Retry On Fail when a try builds an item differently from the try before', () => {
	const { double, credentials } = useServiceDouble();
	const clock = useN8nClock();

	/** The clock passes SWITCH_AT as the service gets the first request, so the next try builds differently. */
	function switchWithFirstRequest(): void {
		clock.set(SWITCH_AT - 60_000);
		const faults = double().faults;
		const take = faults.take.bind(faults);
		faults.take = (path) => {
			if (path.startsWith('transactions')) clock.set(SWITCH_AT + 60_000);
			return take(path);
		};
	}

	it('refused first, built on the next try: sends it then, and the order the first try queued is not sent again', async () => {
		switchWithFirstRequest();
		const result = await runNode({ credentials: credentials(), parameters: a0Until('>='), items: [order(0, 600), order(1, 600)], onError: 'continueRegularOutput', retry });

		expect(double().transactions.queuedOrderIds().sort()).toEqual(['A-0', 'A-1']);
		expect(double().requestsTo('transactions')).toHaveLength(2);
		expect(result.main.map((json) => [json.queued, json.error])).toEqual([
			[true, undefined],
			[true, undefined],
		]);
	});

	it('built and sent with an unknown outcome, refused on the next try: the item keeps the unknown outcome and nothing is sent again', async () => {
		switchWithFirstRequest();
		double().faults.failNext(1, 500, { match: 'transactions' });
		const result = await runNode({ credentials: credentials(), parameters: a0Until('<'), items: [order(0, 600), order(1, 600)], retry });

		expect(double().requestsTo('transactions')).toHaveLength(1);
		expect(result.error?.message).toContain('outcome is unknown');
		expect(result.error?.message).toContain('(item 0)');
		expect(result.error?.context?.itemIndex).toBe(0);
	});
});
