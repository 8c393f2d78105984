/** Reading the service's report of one request: pure, no n8n or HTTP here. */
import { isPlainObject } from '../../helpers/objects';

export interface ReportEntry {
	queued: boolean;
	contact: unknown;
	message?: string;
}

export type ReadReport = { ok: true; entries: ReportEntry[] } | { ok: false; problem: string };

function readQueued(value: unknown): boolean | undefined {
	if (value === true || value === 'true') return true;
	if (value === false || value === 'false') return false;
	return undefined;
}

/**
 * The report of one request, entry i belonging to transaction i. The wrapper is `reports` or
 * `report` (the spec shows both) and `queued` a boolean or "true"/"false". A count that does
 * not match the transactions sent is refused: pairing them by guesswork could mark an
 * e-mail as sent that was not, or the other way round.
 */
export function readReport(body: string, expectedCount: number): ReadReport {
	let parsed: unknown;
	try {
		parsed = JSON.parse(body);
	} catch {
		return { ok: false, problem: 'the answer is not JSON' };
	}
	const wrapper = isPlainObject(parsed) ? parsed : {};
	const list = Array.isArray(wrapper.reports) ? wrapper.reports : Array.isArray(wrapper.report) ? wrapper.report : undefined;
	if (list === undefined) return { ok: false, problem: 'the answer has no "reports" or "report" list' };
	if (list.length !== expectedCount) {
		return {
			ok: false,
			problem: `the answer has ${list.length} report entries for ${expectedCount} transactions sent`,
		};
	}
	const entries: ReportEntry[] = [];
	for (let index = 0; index < list.length; index++) {
		const raw: unknown = list[index];
		const queued = isPlainObject(raw) ? readQueued(raw.queued) : undefined;
		if (!isPlainObject(raw) || queued === undefined) {
			return { ok: false, problem: `report entry ${index + 1} has no readable "queued" value` };
		}
		const entry: ReportEntry = { queued, contact: raw.contact ?? null };
		if (typeof raw.message === 'string') entry.message = raw.message;
		else if (!queued) entry.message = 'The service did not queue the transaction and gave no reason.';
		entries.push(entry);
	}
	return { ok: true, entries };
}
