import type {
	IDataObject,
	INodeExecutionData,
	INodeProperties,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../credentials/MailingPlatformApi.credentials';
import { PACKAGE_DESCRIPTION } from '../MailingPlatform/description';
import { toSimpleBlock } from '../MailingPlatform/actions/report/blockRecords';
import { blockPages } from '../MailingPlatform/actions/report/blockPages';
import { newStatusFilter, reasonsFilter } from '../MailingPlatform/actions/report/filters';
import { itemError } from '../MailingPlatform/helpers/itemResults';
import { optionSubtitle } from '../MailingPlatform/helpers/subtitle';
import { splitList } from '../MailingPlatform/helpers/values';
import { platformTimeZone } from '../MailingPlatform/helpers/timeZone';
import type { QueryParameters } from '../MailingPlatform/transport';
import { fetchAllPages } from '../MailingPlatform/actions/report/paging';
import type { PollState } from './blockMemory';
import { blockKey, queryStart } from './blockMemory';

const DEFAULT_LOOKBACK_MINUTES = 5;

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
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: [
			event,
			{
				displayName: 'Simplify',
				name: 'simplify',
				type: 'boolean',
				default: true,
				description:
					'Whether to return a flat item per block instead of the full record. Block times have no zone in the service; they are read in the credential’s Platform Time Zone.',
			},
			{
				displayName: 'Filters',
				name: 'filters',
				type: 'collection',
				placeholder: 'Add Filter',
				default: {},
				options: [newStatusFilter, reasonsFilter],
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Lookback (Minutes)',
						name: 'lookbackMinutes',
						type: 'number',
						typeOptions: { minValue: 1, maxValue: 1440, numberPrecision: 0 },
						default: DEFAULT_LOOKBACK_MINUTES,
						description:
							'How far before the previous poll each poll looks again, for blocks the platform records late or a platform clock that runs behind n8n’s. Blocks already emitted are never emitted again.',
					},
				],
			},
		],
	};

	/**
	 * Exactly once, whatever the clocks do: each poll asks for the blocks from the previous
	 * poll's start (n8n's clock) minus the lookback, and emits those it has not emitted before,
	 * recognised by their key. A failing poll throws, so n8n records a failed execution and runs
	 * the Error Workflow; the state then stays as it was, and the next poll asks again.
	 */
	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const startedMs = Date.now();
		let timeZone: string;
		try {
			timeZone = await platformTimeZone.call(this);
		} catch (problem) {
			throw itemError(this.getNode(), problem);
		}
		const simplify = this.getNodeParameter('simplify', true) as boolean;
		const filters = this.getNodeParameter('filters', {}) as IDataObject;
		const lookbackMinutes = this.getNodeParameter('options.lookbackMinutes', DEFAULT_LOOKBACK_MINUTES) as number;
		const filterQuery: QueryParameters = {
			reasons: splitList(filters.reasons),
			new_status: (filters.newStatus as string | undefined) || undefined,
			exclude_anonymous_blocks: true,
		};
		const pages = (query: QueryParameters) => blockPages(this, { ...filterQuery, ...query }, timeZone);
		const emit = (blocks: IDataObject[]) =>
			blocks.length === 0 ? null : [this.helpers.returnJsonArray(simplify ? blocks.map(toSimpleBlock) : blocks)];

		if (this.getMode() === 'manual') {
			// The report is in time order: the newest block is alone on the last page of size 1.
			const first = await pages({})(1, 1);
			const lastPage = first.pageCount ?? 1;
			const latest = lastPage <= 1 ? first.records : (await pages({})(lastPage, 1, lastPage)).records;
			return emit(latest.slice(0, 1));
		}

		const state = this.getWorkflowStaticData('node') as PollState;
		const firstPoll = state.lastPollMs === undefined;
		const fromMs = queryStart(state, startedMs, lookbackMinutes * 60_000);
		const blocks = await fetchAllPages(pages({ from_date: fromMs }));

		const emitted = new Set(state.seen ?? []);
		const seen = new Set<string>();
		const fresh: IDataObject[] = [];
		for (const block of blocks) {
			const key = blockKey(block);
			if (!emitted.has(key) && !seen.has(key)) fresh.push(block);
			seen.add(key);
		}

		state.lastPollMs = Math.max(startedMs, state.lastPollMs ?? startedMs);
		state.fromMs = fromMs;
		state.seen = [...seen];
		return firstPoll ? null : emit(fresh);
	}
}
