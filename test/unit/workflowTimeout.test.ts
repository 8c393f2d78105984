/**
 * Create stops waiting before the workflow's own Timeout Workflow: n8n's retry of an execution
 * its timeout cancelled mid-node runs nothing again, so orders still waiting must fail as not
 * sent first (a failed execution's retry sends them).
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import { beforeTimeoutMs, WaitClock } from '../../nodes/MailingPlatform/actions/transaction/waits';

const withTimeout = (executionTimeout?: number) => ({ getWorkflowSettings: () => (executionTimeout === undefined ? {} : { executionTimeout }) }) as unknown as IExecuteFunctions;

describe('waiting ends before the workflow’s Timeout Workflow', () => {
	it('5 s before a timeout of 15 s or more, a third of a shorter one before it, never without one', () => {
		expect(beforeTimeoutMs(withTimeout(15), 10_000)).toBe(20_000);
		expect(beforeTimeoutMs(withTimeout(120), 10_000)).toBe(125_000);
		expect(beforeTimeoutMs(withTimeout(3), 10_000)).toBe(12_000);
		expect(beforeTimeoutMs(withTimeout(1), 10_000)).toBeCloseTo(10_667, 0);
		expect(beforeTimeoutMs(withTimeout(), 10_000)).toBe(Number.POSITIVE_INFINITY);
		// n8n stores "no timeout" as -1.
		expect(beforeTimeoutMs(withTimeout(-1), 10_000)).toBe(Number.POSITIVE_INFINITY);
	});

	it("counts from the execution's start where n8n hands the node its timeout's moment, EXECUTIONS_TIMEOUT's too", () => {
		// n8n's timeout cancels the execution 12 s from now: its earlier nodes took 8 s of the workflow's 20.
		jest.spyOn(performance, 'now').mockReturnValue(50_000);
		jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
		const atMoment = (settings: IExecuteFunctions, executionTimeoutTimestamp: unknown) => ({ ...settings, additionalData: { executionTimeoutTimestamp } }) as unknown as IExecuteFunctions;
		expect(beforeTimeoutMs(atMoment(withTimeout(20), 1_012_000), 50_000)).toBe(57_000);
		// No Timeout Workflow on the workflow, n8n's EXECUTIONS_TIMEOUT with 12 s left as Create starts: a third of what is left.
		expect(beforeTimeoutMs(atMoment(withTimeout(), 1_012_000), 50_000)).toBe(58_000);
		// n8n without a timeout hands no moment.
		expect(beforeTimeoutMs(atMoment(withTimeout(), undefined), 50_000)).toBe(Number.POSITIVE_INFINITY);
		jest.restoreAllMocks();
	});

	it('cuts Max Wait Seconds short at that moment, and only then', () => {
		jest.spyOn(performance, 'now').mockReturnValue(5_000);
		expect(new WaitClock(120_000, 7_000).deadlineMs).toBe(7_000);
		expect(new WaitClock(1_000, 7_000).deadlineMs).toBe(6_000);
		expect(new WaitClock(1_000).deadlineMs).toBe(6_000);
		jest.restoreAllMocks();
	});
});
