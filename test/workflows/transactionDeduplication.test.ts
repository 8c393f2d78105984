import { setTimeout as sleep } from 'node:timers/promises';

import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import type { IDataObject } from 'n8n-workflow';

import { keyStoreIdle } from '../../nodes/MailingPlatform/helpers/keyStore';
import { gateOf } from '../../nodes/MailingPlatform/transport/accountGate';

import { useServiceDouble } from '../harness/double';
import { range } from '../harness/deliveries';
import { HARNESS_NODE, processedData } from '../harness/processedData';
import { jsonMode, order } from '../harness/transactions';
import { retryExecution, runNode } from '../harness/workflow';

const keyed = (options: Record<string, unknown> = {}) => ({
	...jsonMode,
	options: { deduplicationKey: '={{ $json.content["order.id"] }}', ...options },
});
const orders = [order(0), order(1), order(2)];

/**
 * n8n's store here is the model in test/harness/processedData.ts (n8n ships the store only in its
 * CLI package); test:e2e runs the same three orders twice, one key twice in an execution, a
 * failed send and a History Size of 2 against a real n8n and its database.
 */
describe('transaction › create with a Deduplication Key (model of n8n’s store)', () => {
	const { double, credentials } = useServiceDouble();
	afterEach(() => jest.restoreAllMocks());

	it('sends the same three orders once over two executions; the second skips them on the main output', async () => {
		const first = await runNode({ credentials: credentials(), parameters: keyed(), items: orders, onError: 'continueErrorOutput' });
		const second = await runNode({ credentials: credentials(), parameters: keyed(), items: orders, onError: 'continueErrorOutput' });

		expect(first.main.map((json) => [json.queued, json.deduplicationKey])).toEqual([[true, 'A-0'], [true, 'A-1'], [true, 'A-2']]);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1', 'A-2']);
		expect(double().requestsTo('transactions')).toHaveLength(1);
		expect(second.errorOutput).toEqual([]);
		expect(second.main).toEqual(
			orders.map((transaction, index) => ({
				queued: false,
				skipped: true,
				deduplicationKey: `A-${index}`,
				contact: transaction.contact,
				message: 'Not sent again: this node already sent a transaction with this Deduplication Key',
			})),
		);
		expect(second.outputs[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('sends one transaction for two items with the same key in one execution', async () => {
		const result = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0), order(1), order(0)] });

		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1']);
		expect(result.main[2]).toMatchObject({ skipped: true, deduplicationKey: 'A-0', message: 'Not sent: item 0 of this execution has the same Deduplication Key' });
	});

	it('sends in the next execution an order whose first send stayed unavailable (503), and says so', async () => {
		double().faults.failNext(1_000, 503, { match: 'transactions' });
		const failed = await runNode({ credentials: credentials(), parameters: keyed({ maxWaitSeconds: 1 }), items: [order(0)], onError: 'continueRegularOutput' });
		expect(failed.main[0].error).toContain('(item 0)');
		expect(failed.main[0].message).toContain('Its Deduplication Key is not kept, so a re-run sends it.');
		expect(processedData.takes('A-0')).toBe(false);
		double().faults.reset();

		const next = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });
		expect(next.main[0]).toMatchObject({ queued: true, deduplicationKey: 'A-0' });
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
	});

	it('spends no start of the account’s pace on orders it finds sent before: a re-run of 20 sent orders and 5 new ones sends the new ones within Max Wait Seconds', async () => {
		// One order per request (Max Request Bytes), 10 requests a second: twenty skipped orders holding a start each would take 2 s.
		const paced = { credentials: credentials({ maxRequestsPerSecond: 10 }), items: range(25).map((number) => order(number, 700)) };
		await runNode({ ...paced, items: paced.items.slice(0, 20), parameters: keyed({ maxRequestBytes: 1024 }) });
		await keyStoreIdle();
		const rerun = await runNode({ ...paced, parameters: keyed({ maxRequestBytes: 1024, maxWaitSeconds: 1 }), onError: 'continueRegularOutput' });

		expect(rerun.main.slice(0, 20).every((json) => json.skipped === true)).toBe(true);
		expect(rerun.main.slice(20).map((json) => json.queued)).toEqual([true, true, true, true, true]);
		expect(double().transactions.queuedOrderIds()).toHaveLength(25);
	});

	it('fails its execution (On Error › Stop) while the service stays unavailable (503) past Max Wait Seconds, and n8n’s retry of it after the outage sends the orders', async () => {
		double().faults.failNext(1_000, 503, { match: 'transactions' });
		const options = { credentials: credentials(), parameters: keyed({ maxWaitSeconds: 1 }), items: [order(0), order(1)] };
		const failed = await runNode(options);
		expect(failed.error?.message).toMatch(/^2 orders were not sent: it waited 1 s for the account's requests \(Max Wait Seconds\)/);
		expect(failed.error?.description).toBe(
			"Retrying this execution sends them once: the Deduplication Key skips the orders the service queued or may have queued. Retry it in n8n's Executions list, or through n8n's API (POST /executions/{id}/retry).",
		);
		expect(processedData.takes('A-0')).toBe(false);
		double().faults.reset();
		// A user retries after the outage: by then the account's pause after the last 503 is over.
		await sleep(gateOf({ ...options.credentials }).waitMs());

		const retried = await retryExecution(options, failed.run);
		expect(retried.error).toBeUndefined();
		expect(retried.main).toMatchObject([{ queued: true, deduplicationKey: 'A-0' }, { queued: true, deduplicationKey: 'A-1' }]);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1']);
	});

	it('counts no claim of orders it finds taken as waiting: a re-run of 12 orders whose outcome is unknown and 2 new ones sends the new ones within Max Wait Seconds', async () => {
		// One order per request (Max Request Bytes); each key found without its mark is read by recording the mark for a moment.
		const items = range(14).map((number) => order(number, 700));
		double().faults.failNext(12, 500, { match: 'transactions' });
		await runNode({ credentials: credentials(), parameters: keyed({ maxRequestBytes: 1024 }), items: items.slice(0, 12), onError: 'continueRegularOutput' });
		await keyStoreIdle();
		double().faults.reset();
		// A database some 15 ms a read or write away: each claim that finds a key reads its mark, 100 ms or more with the removal round.
		processedData.latencyMs = 15;
		const rerun = await runNode({ credentials: credentials(), parameters: keyed({ maxRequestBytes: 1024, maxWaitSeconds: 1 }), items, onError: 'continueRegularOutput' });

		expect(rerun.main.slice(0, 12).every((json) => json.skipped === true)).toBe(true);
		expect(rerun.main.slice(12).map((json) => json.queued)).toEqual([true, true]);
	});

	it('sends in the next execution an order the service did not queue', async () => {
		const unknownContact = { ...order(1), contact: { external_id: 'C-404' } };
		const first = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0), unknownContact] });
		expect(first.main[1]).toMatchObject({ queued: false, deduplicationKey: 'A-1' });
		expect(first.main[1].message).toBe('No valid contact identification provided for transaction. Its Deduplication Key is not kept, so a re-run sends it.');

		const fixed = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0), order(1)] });
		expect(fixed.main.map((json) => json.skipped ?? json.queued)).toEqual([true, true]);
		expect(fixed.main[0].skipped).toBe(true);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1']);
	});

	it('keeps the key when the outcome is unknown (500 after sending): the shop’s redelivery is skipped, and the error says how to send it anyway', async () => {
		double().faults.failNext(1, 500, { match: 'transactions' });
		const result = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });

		expect(result.error?.message).toContain('outcome is unknown');
		expect(result.error?.description).toContain(
			'Its Deduplication Key "A-0" is kept, because the service may have queued the transaction: a re-run skips this item. Check in the platform whether its e-mail went out; to send it anyway, run it once with another key, e.g. "A-0-again".',
		);
		const redelivered = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });
		expect(redelivered.main[0]).toMatchObject({ skipped: true, deduplicationKey: 'A-0' });
		expect(double().requestsTo('transactions')).toHaveLength(1);
	});

	it('keeps the key of an order answered 302, 507, 520 or 524 (a gateway may answer so after the service queued it), and says its outcome is unknown', async () => {
		// One test for the four: each kept key's confirmation rounds hold the next test back some seconds.
		const statuses = [302, 507, 520, 524];
		for (const [number, status] of statuses.entries()) {
			double().faults.failNext(1, status, { match: 'transactions' });
			const [item] = (await runNode({ credentials: credentials(), parameters: keyed(), items: [order(number)], onError: 'continueRegularOutput' })).main;

			expect([status, item]).toMatchObject([status, { queued: false, outcomeUnknown: true, deduplicationKey: `A-${number}` }]);
			expect(item.error).toContain("the request's outcome is unknown");
			expect(item.message).toContain(`Its Deduplication Key "A-${number}" is kept`);
			const redelivered = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(number)] });
			expect(redelivered.main[0]).toMatchObject({ skipped: true, deduplicationKey: `A-${number}` });
		}
		expect(double().requestsTo('transactions')).toHaveLength(statuses.length);
	});

	it('keeps the original error when the key cannot be released, and says that a re-run skips the item', async () => {
		// Every try of marking it free fails (the claim is call 1).
		for (const call of [2, 3, 4]) processedData.planned.set(call, 'fail');
		const result = await runNode({ credentials: credentials(), parameters: keyed({ ignoreInvalidTransactions: false }), items: [{ ...order(0), contact: { external_id: 'C-404' } }] });

		expect(result.error?.httpCode).toBe('400');
		expect(result.error?.message).toContain('(item 0)');
		expect(result.error?.description).toContain(
			'Its Deduplication Key "A-0" could not be released (connection to the database was lost), so a re-run skips this item; to send it anyway, run it once with another key, e.g. "A-0-again".',
		);
		expect(processedData.takes('A-0')).toBe(true);
		const rerun = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });
		expect(rerun.main[0]).toMatchObject({ skipped: true, deduplicationKey: 'A-0' });
		expect(double().requestsTo('transactions')).toHaveLength(1);
	});

	it('sends the orders whose keys n8n’s store answered for, then fails its execution (On Error › Stop) for the one it could not ask about, which n8n’s retry sends', async () => {
		// The claim is asked again once: a call that failed may have recorded the keys all the same.
		processedData.failingRecordings = 2;
		const options = { credentials: credentials(), parameters: keyed({ maxRequestBytes: 1024 }), items: [order(0, 700), order(1, 700)] };
		const failed = await runNode(options);

		expect(failed.error?.message).toBe("1 order was not sent: The node could not check the Deduplication Key in n8n's store: connection to the database was lost");
		expect(failed.error?.context?.itemIndex).toBe(0);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-1']);

		const retried = await retryExecution(options, failed.run);
		expect(retried.error).toBeUndefined();
		expect(retried.main).toMatchObject([{ queued: true, deduplicationKey: 'A-0' }, { skipped: true, deduplicationKey: 'A-1' }]);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-1', 'A-0']);

		// With On Error › Continue the order stays an item: n8n would answer a failure by passing the input on.
		processedData.failingRecordings = 2;
		const went = await runNode({ ...options, items: [order(2, 700), order(3, 700)], onError: 'continueRegularOutput' });
		expect(went.main.map((json) => json.error ?? json.queued)).toEqual(["The node could not check the Deduplication Key in n8n's store: connection to the database was lost", true]);
	});

	it('says so in n8n’s log when n8n’s store keeps losing the key’s recording after the execution, which ended queued', async () => {
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
		// The claim's recording and every confirmation round after the send are undone.
		processedData.lostRecordings = Number.POSITIVE_INFINITY;
		const result = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });

		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
		expect(result.main[0]).toMatchObject({ queued: true, deduplicationKey: 'A-0' });
		expect(result.main[0].message).toBeUndefined();
		await keyStoreIdle();
		expect(warn.mock.calls.map(([message]) => message)).toEqual([
			'Mailing Platform node "Mailing Platform", Deduplication Key "A-0": in 12 tries n8n\'s store did not keep it: another n8n process kept writing this node\'s history. A later delivery of its order may send it again.',
		]);
		expect(processedData.takes('A-0')).toBe(false);
	});

	it('records again a key another process’s stale write removed 1 s after the execution, and says so in n8n’s log', async () => {
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
		processedData.seed(['key earlier order']);
		// Another process read the row just before the claim and writes it back 1 s later.
		processedData.staleWrites.set(1, 1_000);
		await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });
		await keyStoreIdle();

		expect(processedData.overwrites).toBeGreaterThan(0);
		expect(processedData.remembers('key A-0')).toBe(true);
		expect(warn.mock.calls.map(([message]) => message)).toEqual([
			'Mailing Platform node "Mailing Platform", Deduplication Key "A-0": another n8n process\'s write removed it from n8n\'s store after its transaction was sent, and this process recorded it again: a delivery of its order to another n8n process in between may have been sent again.',
		]);
		const again = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });
		expect(again.main[0]).toMatchObject({ skipped: true, deduplicationKey: 'A-0' });
	});

	it('sends on its next delivery an order the service did not queue, though another process’s stale write undid its release', async () => {
		const warn = jest.spyOn(Container.get(Logger), 'warn').mockImplementation(() => {});
		double().faults.notQueuedOrders.add('A-0');
		// Another process read the row (the key taken) just before the release and writes it back 50 ms later.
		processedData.staleWrites.set(2, 50);
		const first = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)], onError: 'continueRegularOutput' });
		expect(first.main[0]).toMatchObject({ queued: false, deduplicationKey: 'A-0' });
		await keyStoreIdle();

		expect(processedData.overwrites).toBeGreaterThan(0);
		expect(warn.mock.calls.map(([message]) => message)).toEqual([
			'Mailing Platform node "Mailing Platform", Deduplication Key "A-0": another n8n process\'s write removed its release from n8n\'s store, and this process recorded it again: should a delivery of its order have been sent in between, a later one may send it again.',
		]);
		double().faults.notQueuedOrders.delete('A-0');
		const again = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });
		expect(again.main[0]).toMatchObject({ queued: true, deduplicationKey: 'A-0' });
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
	});

	it('sends an order given back twice though its first generation’s "sent" mark, written to read it, stays while it reads the next generation', async () => {
		// Two earlier executions gave the key back (a refused request each): its generations 1 and 2 are marked free.
		processedData.seed(['key A-0', 'free A-0', 'key#2 A-0', 'free#2 A-0']);
		// The reading's removal of its first "sent" mark is undone at once, as another worker's write of an older read undoes it.
		processedData.planned.set(4, 'undo');
		const delivery = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });
		await keyStoreIdle();

		expect(processedData.calls.slice(0, 4).map(({ operation, items }) => [operation, items])).toEqual([
			['checkProcessedAndRecord', ['key A-0']],
			['checkProcessedAndRecord', ['sent A-0']],
			['checkProcessedAndRecord', ['free A-0']],
			['removeProcessed', ['sent A-0']],
		]);
		expect(delivery.main[0]).toMatchObject({ queued: true, deduplicationKey: 'A-0' });
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
	});

	it.each([
		{ mark: 'sent', how: 'it asks once more', failing: 2, reading: [['sent A-0'], ['sent A-0'], ['free A-0']] },
		{ mark: 'free', how: 'it reads the mark’s twin', failing: 3, reading: [['sent A-0'], ['free A-0'], ['freed A-0']] },
	])('sends an order given back, though n8n’s store failed the call reading its "$mark" mark: $how', async ({ failing, reading }) => {
		processedData.seed(['key A-0', 'free A-0', 'freed A-0']);
		processedData.planned.set(failing, 'fail');
		const delivery = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });
		await keyStoreIdle();

		// The claim, the reading, and the removal of the one mark it wrote.
		expect(processedData.calls.slice(0, 5).map(({ items }) => items)).toEqual([['key A-0'], ...reading, ['sent A-0']]);
		expect(processedData.calls[4].operation).toBe('removeProcessed');
		expect(delivery.main[0]).toMatchObject({ queued: true, deduplicationKey: 'A-0' });
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
		expect(processedData.remembers('free A-0')).toBe(true);
	});

	it('refuses an item whose key is empty, sends the others, and fails its execution with the refusal, which a retry cannot change', async () => {
		const result = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0), { ...order(1), content: { 'order.id': ' ' } }] });

		expect(result.error?.message).toBe('Deduplication Key is empty, so the node cannot tell whether this transaction was sent before');
		expect(result.error?.context?.itemIndex).toBe(1);
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0']);
	});

	it('refuses more keys than the history keeps, before anything is sent, naming both numbers', async () => {
		const result = await runNode({ credentials: credentials(), parameters: keyed({ deduplicationHistorySize: 2 }), items: orders, onError: 'continueRegularOutput' });

		expect(result.main.map((json) => json.error)).toEqual(
			orders.map(() => '3 items have a Deduplication Key, more than Deduplication History Size keeps (2): the first keys would be forgotten while the last are sent'),
		);
		expect(result.main[0].message).toContain('Raise Deduplication History Size to at least 3, or send fewer items per execution.');
		expect(double().requests).toHaveLength(0);
		expect(processedData.calls).toHaveLength(0);
	});

	it('gives n8n’s store the Deduplication History Size as the limit of this node’s history, on every call', async () => {
		double().faults.notQueuedOrders.add('A-1');
		await runNode({ credentials: credentials(), parameters: keyed({ deduplicationHistorySize: 2 }), items: [order(0), order(1)] });

		// Recorded before sending, recorded again for A-0, marked free for A-1 (not queued). Two
		// entries per key: the key, and beside it the mark that the service queued its transaction, or that it is free.
		expect(new Set(processedData.calls.map((call) => call.operation))).toEqual(new Set(['checkProcessedAndRecord']));
		for (const call of processedData.calls) {
			expect(call).toMatchObject({ scope: 'node', workflowId: HARNESS_NODE.workflowId, nodeId: HARNESS_NODE.nodeId, options: { mode: 'entries', maxEntries: 4 } });
		}
	});

	it('ends a lone queued order’s execution after its claim, the one store call it waits for; its mark and confirmation follow', async () => {
		const result = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });

		expect(result.main[0]).toMatchObject({ queued: true, deduplicationKey: 'A-0' });
		expect(processedData.calls.map((call) => call.items)).toEqual([['key A-0']]);
		await keyStoreIdle();
		// The mark with the first confirmation round, then a round at each of 0.5, 1.5 and 4 s.
		expect(processedData.calls.map((call) => call.items)).toEqual([['key A-0'], ['key A-0', 'sent A-0'], ['key A-0'], ['key A-0'], ['key A-0']]);
	});

	it('writes a queued order’s mark before an `n8n execute` run ends, since its process ends with it: a later delivery is skipped as already sent', async () => {
		const result = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)], mode: 'cli' });

		expect(result.main[0]).toMatchObject({ queued: true, deduplicationKey: 'A-0' });
		expect(processedData.calls.map((call) => call.items)).toEqual([['key A-0'], ['key A-0', 'sent A-0']]);
		await keyStoreIdle();
		const again = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)], mode: 'cli' });
		expect(again.main[0]).toMatchObject({ skipped: true, message: expect.stringMatching(/already sent/) });
	});

	it('sends an order whose key reads like the "sent" mark of a key sent before: keys and marks never meet', async () => {
		const withId = (id: string) => ({ ...order(0), content: { ...(order(0).content as IDataObject), 'order.id': id } });
		const outcomes: unknown[] = [];
		for (const id of ['A-0', 'sent A-0']) {
			// As `n8n execute` runs it, the execution ends once its "sent" mark is written.
			const [item] = (await runNode({ credentials: credentials(), parameters: keyed(), items: [withId(id)], mode: 'cli' })).main;
			outcomes.push([id, item.queued === true ? 'queued' : item.skipped === true ? 'skipped' : item.error]);
		}
		expect(outcomes).toEqual([['A-0', 'queued'], ['sent A-0', 'queued']]);
	});

	it('counts the wait for another execution sending the same order within Max Wait Seconds: past it, the execution’s items fail as not sent', async () => {
		// The first execution's answer comes only once the second has ended: a second that waited for it would never end.
		const answer = double().faults.holdAnswers();
		const first = runNode({ credentials: credentials(), parameters: keyed(), items: [order(0)] });
		// The first execution holds "A-0" once its request reached the account, however slowly the machine started it.
		while (double().requestsTo('transactions').length === 0) await sleep(10);
		const startedMs = performance.now();
		const second = await runNode({ credentials: credentials(), parameters: keyed({ maxWaitSeconds: 1 }), items: [order(0), order(1)], onError: 'continueRegularOutput' });

		expect(performance.now() - startedMs).toBeGreaterThanOrEqual(1000);
		expect(second.main[0]).toMatchObject({ queued: false, outcomeUnknown: false, notSentYet: true, deduplicationKey: 'A-0' });
		expect(second.main[0].error).toContain('another execution of this node was sending a transaction with the same Deduplication Key');
		expect(second.main[0].message).toContain('Running it again sends it once, unless that execution queued the same transaction: then a re-run skips it.');
		expect(second.main[1]).toMatchObject({ queued: false, outcomeUnknown: false, notSentYet: true, deduplicationKey: 'A-1' });
		expect(second.main[1].error).toBe("Not sent: it waited 1 s for the account's requests (Max Wait Seconds) because another execution was sending a transaction with the same Deduplication Key (item 1)");
		answer();
		expect((await first).main[0]).toMatchObject({ queued: true });
		expect(double().requestsTo('transactions')).toHaveLength(1);
	});

	it('lets the confirmations of orders arriving one after another ride the next orders’ claims, which go at once', async () => {
		// Twelve one-order executions 50 ms apart, as a shop's steady stream of 20 orders a second.
		const stream = range(12).map(async (number) => {
			await sleep(50 * number);
			const run = await runNode({ credentials: credentials(), parameters: keyed(), items: [order(number)] });
			return { queued: run.main[0].queued, claimsBefore: processedData.calls.filter((call) => call.items.includes(`key A-${number}`)).length };
		});
		const runs = await Promise.all(stream);
		await keyStoreIdle();

		expect(runs).toEqual(range(12).map(() => ({ queued: true, claimsBefore: 1 })));
		expect(double().transactions.queuedOrderIds()).toHaveLength(12);
		// Alone, each order would call the store five times (its claim, four rounds): 60 rewrites.
		expect(processedData.calls.length).toBeLessThanOrEqual(24);
	});

	it('sends again an order the history no longer holds: of three orders some seconds apart with a History Size of 2, the first (the model forgets the oldest, as n8n does)', async () => {
		const send = async (transaction: IDataObject) => {
			const [item] = (await runNode({ credentials: credentials(), parameters: keyed({ deduplicationHistorySize: 2 }), items: [transaction] })).main;
			// Each key's mark is written after its execution: a few orders a second apart could have a newer key's written before an older key's mark.
			await keyStoreIdle();
			return item;
		};
		for (const transaction of orders) await send(transaction);

		expect(await send(order(2))).toMatchObject({ skipped: true, deduplicationKey: 'A-2' });
		expect(await send(order(1))).toMatchObject({ skipped: true, deduplicationKey: 'A-1' });
		expect(await send(order(0))).toMatchObject({ queued: true, deduplicationKey: 'A-0' });
		expect(double().transactions.queuedOrderIds()).toEqual(['A-0', 'A-1', 'A-2', 'A-0']);
	});
});
