import { useServiceDouble } from '../harness/double';
import { useN8nClock } from '../harness/clock';
import { pollWorkflow, runPoll } from '../harness/poll';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

interface Scenario {
	/** The platform account's zone: the double writes block times in it. */
	account: string;
	workflow: string;
	/** The credential's Platform Time Zone; empty for the workflow's. */
	credentialZone?: string;
	/** n8n's clock (epoch ms) at each poll; the first one activates the trigger. */
	polls: number[];
	/** Block times (epoch ms); each block is written `delayMs` after its time, from the service's clock. */
	blocks: Array<{ at: number; delayMs?: number }>;
	/** How far the service's clock is ahead of n8n's (negative: behind). */
	serviceAheadMs?: number;
}

/**
 * Runs the polls of a scenario: before each, the double holds every block written by then.
 * Returns the contact IDs each poll emitted and the IDs of the blocks written after activation.
 */
function useScenario() {
	const { double, credentials } = useServiceDouble();
	const clock = useN8nClock();
	return async (scenario: Scenario) => {
		double().timeZone = scenario.account;
		const workflow = pollWorkflow({ timezone: scenario.workflow });
		const written = scenario.blocks.map((block, index) => ({
			contactId: index + 1,
			at: block.at,
			writtenAtN8n: block.at + (block.delayMs ?? 0) - (scenario.serviceAheadMs ?? 0),
		}));
		const emitted: number[][] = [];
		const added = new Set<number>();
		for (const pollMs of scenario.polls) {
			for (const block of written) {
				if (block.writtenAtN8n <= pollMs && !added.has(block.contactId)) {
					double().reports.addBlock({ at: new Date(block.at), contactId: block.contactId });
					added.add(block.contactId);
				}
			}
			clock.set(pollMs);
			const items = await runPoll(workflow, credentials({ platformTimeZone: scenario.credentialZone ?? '' }));
			emitted.push(items.map((item) => item.contactId as number));
		}
		const activation = scenario.polls[0];
		const expected = written.filter((block) => block.writtenAtN8n > activation && block.writtenAtN8n <= scenario.polls.at(-1)!);
		return { emitted, expected: expected.map((block) => block.contactId) };
	};
}

/** Blocks every `stepMs` from `fromMs` (inclusive) to `toMs` (exclusive). */
function every(stepMs: number, fromMs: number, toMs: number): Array<{ at: number }> {
	const blocks = [];
	for (let at = fromMs; at < toMs; at += stepMs) blocks.push({ at });
	return blocks;
}

function expectExactlyOnce({ emitted, expected }: { emitted: number[][]; expected: number[] }) {
	const all = emitted.flat();
	expect(all.length).toBe(new Set(all).size);
	expect([...all].sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));
	expect(expected.length).toBeGreaterThan(0);
}

describe('mailingPlatformTrigger › each block exactly once', () => {
	const scenario = useScenario();
	const t0 = Date.parse('2026-06-10T12:00:00Z');
	const threePolls = [t0, t0 + 10 * MINUTE, t0 + 20 * MINUTE];
	const throughout = every(37_000, t0 - 5 * MINUTE, t0 + 20 * MINUTE);

	it('(a) account and workflow both in Europe/Berlin', async () => {
		const result = await scenario({ account: 'Europe/Berlin', workflow: 'Europe/Berlin', polls: threePolls, blocks: throughout });
		expectExactlyOnce(result);
		expect(result.emitted[0]).toEqual([]);
	});

	it('(b) account in Europe/Berlin, workflow in America/New_York', async () => {
		const result = await scenario({
			account: 'Europe/Berlin',
			workflow: 'America/New_York',
			credentialZone: 'Europe/Berlin',
			polls: threePolls,
			blocks: throughout,
		});
		expectExactlyOnce(result);
	});

	it('(b) the same with Platform Time Zone left empty: zones never decide what is emitted', async () => {
		expectExactlyOnce(await scenario({ account: 'Europe/Berlin', workflow: 'America/New_York', polls: threePolls, blocks: throughout }));
	});

	it('(c) account in UTC, workflow in Europe/Berlin, service clock 90 s behind n8n', async () => {
		const result = await scenario({
			account: 'UTC',
			workflow: 'Europe/Berlin',
			credentialZone: 'UTC',
			polls: threePolls,
			blocks: throughout,
			serviceAheadMs: -90_000,
		});
		expectExactlyOnce(result);
	});

	it('(c) the service clock 2 minutes ahead of n8n', async () => {
		expectExactlyOnce(
			await scenario({ account: 'UTC', workflow: 'Europe/Berlin', polls: threePolls, blocks: throughout, serviceAheadMs: 2 * MINUTE }),
		);
	});

	it('(d) blocks around 02:00-03:00 on 2026-10-25 in Europe/Berlin, the hour that happens twice', async () => {
		// 02:00-03:00 local happens from 00:00Z to 01:00Z (summer time) and again from 01:00Z to 02:00Z.
		const start = Date.parse('2026-10-24T23:30:00Z');
		const blocks = every(4 * MINUTE, start, start + 3 * HOUR);
		// The same local second in both passes of the repeated hour, e.g. 02:30:00 twice.
		blocks.push({ at: Date.parse('2026-10-25T00:30:00Z') }, { at: Date.parse('2026-10-25T01:30:00Z') });
		const polls = [start, start + 50 * MINUTE, start + 95 * MINUTE, start + 150 * MINUTE, start + 3 * HOUR];
		const result = await scenario({ account: 'Europe/Berlin', workflow: 'Europe/Berlin', credentialZone: 'Europe/Berlin', polls, blocks });
		expectExactlyOnce(result);
	});

	it('(e) a block written late, 30 s before the last one emitted', async () => {
		const last = t0 + 9 * MINUTE;
		const blocks = [{ at: t0 + 2 * MINUTE }, { at: last }, { at: last - 30_000, delayMs: 3 * MINUTE }];
		const result = await scenario({ account: 'Europe/Berlin', workflow: 'America/New_York', polls: threePolls, blocks });
		expect(result.emitted).toEqual([[], [1, 2], [3]]);
		expectExactlyOnce(result);
	});

	it('(f) two distinct blocks in the same second, also when the second one is written late', async () => {
		const second = t0 + 5 * MINUTE;
		const blocks = [{ at: second }, { at: second }, { at: second + 1000 }, { at: second + 1000, delayMs: 7 * MINUTE }];
		const result = await scenario({ account: 'Europe/Berlin', workflow: 'Europe/Berlin', polls: threePolls, blocks });
		expect(result.emitted).toEqual([[], [1, 2, 3], [4]]);
		expectExactlyOnce(result);
	});

	it('(g) polls an hour apart, then a five-hour gap, with blocks all through each interval', async () => {
		const polls = [t0, t0 + HOUR, t0 + 2 * HOUR, t0 + 7 * HOUR, t0 + 7 * HOUR + MINUTE];
		const result = await scenario({
			account: 'Europe/Berlin',
			workflow: 'America/New_York',
			credentialZone: 'Europe/Berlin',
			polls,
			blocks: every(50_000, t0 - 10 * MINUTE, t0 + 7 * HOUR + MINUTE),
		});
		expectExactlyOnce(result);
		expect(result.emitted[3].length).toBeGreaterThan(300);
	});
});
