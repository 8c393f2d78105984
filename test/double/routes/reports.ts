import { DateTime } from 'luxon';

import type { DoubleRequest, DoubleResponse } from '../http';
import { xmlError, xmlResponse } from '../http';
import type { XmlElement, XmlValue } from '../xml';
import { toXml } from '../xml';
import { BadRequest, booleanParameter, integer, oneOf, pagedAnswer } from './reportQuery';

export type BlockStatus = 'allowed' | 'blocked';

export interface BlockInput {
	/** When the change happened; kept to the second, as the service does. */
	at: Date | string;
	contactId?: number;
	email?: string;
	externalId?: string | null;
	reason?: string;
	oldStatus?: BlockStatus;
	newStatus?: BlockStatus;
	standardFields?: Record<string, string | null>;
	customFields?: Record<string, string | null>;
}

export interface StoredBlock {
	atMs: number;
	anonymous: boolean;
	contactId: number;
	email: string;
	externalId: string | null;
	reason: string;
	oldStatus: BlockStatus;
	newStatus: BlockStatus;
	standardFields: Record<string, string | null>;
	customFields: Record<string, string | null>;
}

interface UnsubscriptionEvent {
	reason: string;
	atMs: number;
}

function toMillis(at: Date | string): number {
	const ms = at instanceof Date ? at.getTime() : Date.parse(at);
	if (Number.isNaN(ms)) throw new Error(`not a time: ${String(at)}`);
	return Math.floor(ms / 1000) * 1000;
}

/**
 * GET reports/blocks, reports/blocks/count and reports/unsubscriptions/reasons. Block times
 * are written as wall-clock time in `timeZone` (no zone in the answer), as the service does.
 * Records are kept compact and each page's XML is built when it is asked for.
 */
export class ReportsArea {
	timeZone = 'Europe/Berlin';

	readonly blocks: StoredBlock[] = [];

	readonly unsubscriptions: UnsubscriptionEvent[] = [];

	/** Statuses to answer for given page indexes (each used once), to fail one page of a report. */
	private readonly pageFaults: Array<{ pageIndex: number; status: number; retryAfter?: string }> = [];

	private nextContactId = 1001;

	private readonly offsets = new Map<string, number>();

	private sorted = true;

	addBlock(input: BlockInput): StoredBlock {
		return this.store(input, false);
	}

	/** A block that cannot be mapped to a contact: only reported with exclude_anonymous_blocks=false. */
	addAnonymousBlock(input: BlockInput): StoredBlock {
		return this.store(input, true);
	}

	/** `count` blocks, `stepMs` apart from `start`, alternating reasons and statuses. */
	generateBlocks(count: number, options: { start: Date | string; stepMs?: number } = { start: '2024-05-01T00:00:00Z' }): void {
		const startMs = toMillis(options.start);
		for (let index = 0; index < count; index++) {
			const contactId = this.nextContactId++;
			this.blocks.push({
				atMs: startMs + Math.floor((index * (options.stepMs ?? 1000)) / 1000) * 1000,
				anonymous: false,
				contactId,
				email: `contact${contactId}@example.com`,
				externalId: index % 3 === 0 ? null : `EXT-${contactId}`,
				reason: index % 2 === 0 ? 'blacklist' : 'bounce_policy',
				oldStatus: index % 4 === 3 ? 'blocked' : 'allowed',
				newStatus: index % 4 === 3 ? 'allowed' : 'blocked',
				standardFields: { FIRSTNAME: `First${contactId}`, LASTNAME: index % 5 === 0 ? null : `Last${contactId}` },
				customFields: { 'shoe size': String(36 + (index % 10)) },
			});
		}
		this.sorted = false;
	}

	/** `count` unsubscriptions giving `reason` (any string) at `at`. */
	addUnsubscriptions(reason: string, count = 1, at: Date | string = '2024-05-01T12:00:00Z'): void {
		for (let index = 0; index < count; index++) this.unsubscriptions.push({ reason, atMs: toMillis(at) });
	}

	/** Answers `status` (with `Retry-After` if given) to the next `times` requests of page `pageIndex` of any report. */
	failPage(pageIndex: number, status = 503, times = 1, retryAfter?: string): void {
		for (let index = 0; index < times; index++) this.pageFaults.push({ pageIndex, status, retryAfter });
	}

	handle(request: DoubleRequest): DoubleResponse | undefined {
		const [reports, kind, ...rest] = request.segments;
		if (reports !== 'reports') return undefined;
		if (request.method !== 'GET') return xmlError(405, 'Method not allowed.');
		try {
			if (kind === 'blocks' && rest.length === 0) return this.blockPage(request.query);
			if (kind === 'blocks' && rest.length === 1 && rest[0] === 'count') return this.blockCount(request.query);
			if (kind === 'unsubscriptions' && rest.length === 1 && rest[0] === 'reasons') return this.reasonPage(request.query);
			return xmlError(404, 'Not found.');
		} catch (error) {
			if (error instanceof BadRequest) return xmlError(400, error.message);
			throw error;
		}
	}

	/** `YYYY-MM-DD HH:MM:SS` (or with tenths) wall-clock time in `timeZone`, as the service writes it. */
	formatTime(ms: number, withTenths = false): string {
		// Zones change offset on whole UTC hours here; reading the zone once per hour keeps 100,000 blocks fast.
		const hour = Math.floor(ms / 3_600_000);
		const key = `${this.timeZone}|${hour}`;
		let offsetMs = this.offsets.get(key);
		if (offsetMs === undefined) {
			offsetMs = DateTime.fromMillis(hour * 3_600_000, { zone: this.timeZone }).offset * 60_000;
			this.offsets.set(key, offsetMs);
		}
		const wall = new Date(ms + offsetMs).toISOString();
		return `${wall.slice(0, 10)} ${wall.slice(11, 19)}${withTenths ? wall.slice(19, 21) : ''}`;
	}

	private store(input: BlockInput, anonymous: boolean): StoredBlock {
		const contactId = input.contactId ?? this.nextContactId++;
		const block: StoredBlock = {
			atMs: toMillis(input.at),
			anonymous,
			contactId,
			email: input.email ?? `contact${contactId}@example.com`,
			externalId: input.externalId ?? null,
			reason: input.reason ?? 'blacklist',
			oldStatus: input.oldStatus ?? 'allowed',
			newStatus: input.newStatus ?? 'blocked',
			standardFields: input.standardFields ?? {},
			customFields: input.customFields ?? {},
		};
		this.blocks.push(block);
		this.sorted = false;
		return block;
	}

	private sortedBlocks(): StoredBlock[] {
		if (!this.sorted) {
			// Stable: blocks of the same second keep the order they were added in.
			this.blocks.sort((a, b) => a.atMs - b.atMs);
			this.sorted = true;
		}
		return this.blocks;
	}

	private matchingBlocks(query: URLSearchParams): StoredBlock[] {
		const from = integer(query, 'from_date', undefined, 0);
		const to = integer(query, 'to_date', undefined, 0);
		const ids = new Set(query.getAll('ids'));
		for (const id of ids) if (!/^\d+$/.test(id)) throw new BadRequest(`Invalid contact id '${id}'.`);
		const emails = new Set(query.getAll('emails').map((email) => email.toLowerCase()));
		const eids = new Set(query.getAll('eids'));
		const reasons = new Set(query.getAll('reasons'));
		for (const reason of reasons) {
			if (reason !== 'blacklist' && reason !== 'bounce_policy') throw new BadRequest(`Invalid reason '${reason}'.`);
		}
		const oldStatus = oneOf(query, 'old_status', ['allowed', 'blocked'] as const);
		const newStatus = oneOf(query, 'new_status', ['allowed', 'blocked'] as const);
		const excludeAnonymous = booleanParameter(query, 'exclude_anonymous_blocks', true);
		return this.sortedBlocks().filter(
			(block) =>
				(from === undefined || block.atMs >= from) &&
				(to === undefined || block.atMs < to) &&
				(ids.size === 0 || ids.has(String(block.contactId))) &&
				(emails.size === 0 || emails.has(block.email.toLowerCase())) &&
				(eids.size === 0 || (block.externalId !== null && eids.has(block.externalId))) &&
				(reasons.size === 0 || reasons.has(block.reason)) &&
				(oldStatus === undefined || block.oldStatus === oldStatus) &&
				(newStatus === undefined || block.newStatus === newStatus) &&
				!(excludeAnonymous && block.anonymous),
		);
	}

	private page<T>(query: URLSearchParams, path: string, records: T[], render: (records: T[]) => string): DoubleResponse {
		return pagedAnswer(query, path, records, render, (pageIndex) => {
			const fault = this.pageFaults.findIndex((candidate) => candidate.pageIndex === pageIndex);
			if (fault < 0) return undefined;
			const [{ status, retryAfter }] = this.pageFaults.splice(fault, 1);
			const response = xmlError(status, `Injected ${status} on page ${pageIndex}`);
			if (retryAfter !== undefined) response.headers = { ...response.headers, 'Retry-After': retryAfter };
			return response;
		});
	}

	private blockPage(query: URLSearchParams): DoubleResponse {
		const blocks = this.matchingBlocks(query);
		const standard = query.getAll('standard_field');
		const custom = query.getAll('custom_field');
		return this.page(query, 'reports/blocks', blocks, (slice) => {
			const elements = slice.map((block) => this.blockXml(block, standard, custom));
			return `<blocks>${elements.join('')}</blocks>`;
		});
	}

	private blockXml(block: StoredBlock, standard: string[], custom: string[]): string {
		const fields = (values: Record<string, string | null>, names: string[]): XmlElement[] =>
			names.map((name) => ({ field: { name, value: values[name] ?? null } }));
		const contact: XmlValue = block.anonymous
			? null
			: {
					id: block.contactId,
					email: block.email,
					permissionStatus: 'available',
					permissionType: 'doi+',
					created: this.formatTime(block.atMs - 30 * 86_400_000 - 300, true),
					updated: this.formatTime(block.atMs, true),
					external_id: block.externalId,
					standard_fields: fields(block.standardFields, standard),
					custom_fields: fields(block.customFields, custom),
				};
		return toXml({
			block: {
				contact,
				timestamp: this.formatTime(block.atMs),
				old_status: block.oldStatus,
				new_status: block.newStatus,
				reason: block.reason,
			},
		});
	}

	private blockCount(query: URLSearchParams): DoubleResponse {
		return xmlResponse(200, `<?xml version="1.0" encoding="UTF-8"?>\n${toXml({ count: this.matchingBlocks(query).length })}`);
	}

	private reasonPage(query: URLSearchParams): DoubleResponse {
		const from = integer(query, 'from_date', undefined, 0);
		const to = integer(query, 'to_date', undefined, 0);
		const order = oneOf(query, 'order', ['count', 'name'] as const) ?? 'count';
		const ascending = booleanParameter(query, 'asc', true);
		const counts = new Map<string, number>();
		for (const event of this.unsubscriptions) {
			if ((from === undefined || event.atMs >= from) && (to === undefined || event.atMs < to)) {
				counts.set(event.reason, (counts.get(event.reason) ?? 0) + 1);
			}
		}
		const byName = (a: [string, number], b: [string, number]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
		const entries = [...counts.entries()].sort((a, b) => (order === 'count' ? a[1] - b[1] || byName(a, b) : byName(a, b)));
		if (!ascending) entries.reverse();
		return this.page(query, 'reports/unsubscriptions/reasons', entries, (slice) =>
			toXml({ unsubscription_reasons: slice.map(([reason, count]) => ({ unsubscription_reason: { reason, count } })) }),
		);
	}
}
