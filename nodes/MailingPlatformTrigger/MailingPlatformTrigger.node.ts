import type {
	IDataObject,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { newStatusFilter, reasonsFilter } from '../MailingPlatform/actions/report/filters';
import { PACKAGE_DESCRIPTION } from '../MailingPlatform/description';
import { fetchReportPage } from '../MailingPlatform/actions/report/paging';
import { toRawBlock, toSimpleBlock } from '../MailingPlatform/helpers/blockRecords';
import type { QueryParameters } from '../MailingPlatform/transport';
import { optionSubtitle } from '../MailingPlatform/helpers/subtitle';
import type { Page } from '../MailingPlatform/transport/paging';
import { fetchAllPages } from '../MailingPlatform/transport/paging';

/**
 * What the trigger remembers between polls, in the workflow's static data only, so that any
 * worker of a queue-mode setup continues where the last one stopped. `from_date` is inclusive
 * and block times have one-second resolution: the records already emitted at the cursor's
 * second are remembered by key, so the next poll can ask from that second again and skip them.
 */
interface PollState {
	/** Epoch milliseconds of the newest block emitted (or seen at activation). */
	cursorMs?: number;
	/** Keys of the blocks at `cursorMs` that were already emitted. */
	keysAtCursor?: string[];
}

/** How far back the first poll starts when the report is empty, to absorb clock differences. */
const EMPTY_REPORT_LOOKBACK_MS = 5 * 60_000;

/** Identifies a block among those of the same second. */
function blockKey(raw: IDataObject): string {
	const contact = (raw.contact ?? {}) as IDataObject;
	return JSON.stringify([raw.timestamp, contact.id ?? null, contact.email ?? null, raw.old_status, raw.new_status, raw.reason]);
}

const event: INodeProperties = {
	displayName: 'Event',
	name: 'event',
	type: 'options',
	noDataExpression: true,
	options: [
		{
			name: 'Block Status Changed',
			value: 'blockStatusChanged',
			description: 'A contact was blocked or unblocked (one item per block record)',
		},
	],
	default: 'blockStatusChanged',
};

export class MailingPlatformTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Mailing Platform Trigger',
		name: 'mailingPlatformTrigger',
		icon: { light: 'file:mailingPlatform.svg', dark: 'file:mailingPlatform.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: optionSubtitle(event),
		// Shown by n8n's nodes panel for the package as a whole (see PACKAGE_DESCRIPTION).
		description: PACKAGE_DESCRIPTION.withTrigger,
		defaults: { name: 'Mailing Platform Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mailingPlatformApi', required: true }],
		properties: [
			event,
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				default: true,
				description:
					'Whether to return a flat item per block instead of the full record. Block times have no zone in the service; they are read in the workflow’s timezone.',
			},
			{
				displayName: 'Filters',
				name: 'filters',
				type: 'collection',
				placeholder: 'Add Filter',
				default: {},
				options: [newStatusFilter, reasonsFilter],
			},
		],
	};

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const timeZone = this.getTimezone();
		const simplify = this.getNodeParameter('simplify', true) as boolean;
		const filters = this.getNodeParameter('filters', {}) as IDataObject;
		const filterQuery: QueryParameters = {
			reasons: Array.isArray(filters.reasons) ? (filters.reasons as string[]) : [],
			new_status: (filters.newStatus as string | undefined) || undefined,
			exclude_anonymous_blocks: true,
		};

		const fetchPage = async (query: QueryParameters, pageIndex: number, pageSize: number): Promise<Page<IDataObject>> => {
			const page = await fetchReportPage.call(
				this,
				{ path: ['reports', 'blocks'], query: { ...filterQuery, ...query }, listElement: 'blocks' },
				pageIndex,
				pageSize,
			);
			return { ...page, records: page.records.map((block) => toRawBlock(block, timeZone)) };
		};

		/** The newest block: the report is in time order, so it is the last one. */
		const latestBlock = async (): Promise<IDataObject | undefined> => {
			const first = await fetchPage({}, 1, 1);
			const pages = first.paging.pages;
			if (pages === undefined || pages <= 1) return first.records[0];
			return (await fetchPage({}, pages, 1)).records[0];
		};

		const blockMillis = (raw: IDataObject) => Date.parse(String(raw.timestampIso));
		const emit = (blocks: IDataObject[]) =>
			blocks.length === 0 ? null : [this.helpers.returnJsonArray(blocks.map((raw) => (simplify ? toSimpleBlock(raw) : raw)))];

		if (this.getMode() === 'manual') {
			const latest = await latestBlock();
			return emit(latest === undefined ? [] : [latest]);
		}

		const state = this.getWorkflowStaticData('node') as PollState;
		try {
			let cursorMs = state.cursorMs;
			const alreadyEmitted = new Set(state.keysAtCursor ?? []);
			let keysAtCursor = new Set(alreadyEmitted);
			const firstPoll = cursorMs === undefined;
			if (cursorMs === undefined) {
				const latest = await latestBlock();
				const latestMs = latest === undefined ? Number.NaN : blockMillis(latest);
				cursorMs = Number.isNaN(latestMs) ? Math.floor((Date.now() - EMPTY_REPORT_LOOKBACK_MS) / 1000) * 1000 : latestMs;
			}

			const fromMs = cursorMs;
			const blocks = await fetchAllPages((pageIndex, pageSize) => fetchPage({ from_date: fromMs }, pageIndex, pageSize));
			const fresh: IDataObject[] = [];
			for (const block of blocks) {
				const millis = blockMillis(block);
				const key = blockKey(block);
				if (Number.isNaN(millis) || (millis === fromMs && alreadyEmitted.has(key))) continue;
				if (millis > cursorMs) {
					cursorMs = millis;
					keysAtCursor = new Set();
				}
				if (millis === cursorMs) keysAtCursor.add(key);
				fresh.push(block);
			}

			state.cursorMs = cursorMs;
			state.keysAtCursor = [...keysAtCursor];
			return firstPoll ? null : emit(fresh);
		} catch (error) {
			// The cursor stays where it was, so the next poll asks again and nothing is skipped.
			this.logger.error(`Mailing Platform Trigger: polling block changes failed, will retry at the next poll: ${(error as Error).message}`, {
				workflowId: this.getWorkflow().id,
				node: this.getNode().name,
			});
			return null;
		}
	}
}
