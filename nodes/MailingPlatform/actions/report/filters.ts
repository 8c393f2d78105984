import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { InputProblem, isEmpty, splitList } from '../../helpers/values';
import { parameter, readDateTime } from '../../helpers/parameters';
import type { QueryParameters } from '../../transport';

const fromDate: INodeProperties = {
	displayName: 'From',
	name: 'fromDate',
	type: 'dateTime',
	default: '',
	description:
		'Only records at or after this moment (inclusive). A time without an offset is read in the workflow’s timezone (workflow settings); an ISO value with an offset is taken as it is.',
};

const toDate: INodeProperties = {
	displayName: 'To',
	name: 'toDate',
	type: 'dateTime',
	default: '',
	description:
		'Only records before this moment (exclusive). A time without an offset is read in the workflow’s timezone (workflow settings); an ISO value with an offset is taken as it is.',
};

const statusOptions = [
	{ name: 'Allowed', value: 'allowed' },
	{ name: 'Blocked', value: 'blocked' },
];

/** The block filters the trigger offers too. */
export const newStatusFilter: INodeProperties = {
	displayName: 'New Status',
	name: 'newStatus',
	type: 'options',
	options: statusOptions,
	default: 'blocked',
	description: 'Only changes to this status',
};

export const reasonsFilter: INodeProperties = {
	displayName: 'Reasons',
	name: 'reasons',
	type: 'multiOptions',
	options: [
		{ name: 'Blacklist', value: 'blacklist' },
		{ name: 'Bounce Policy', value: 'bounce_policy' },
	],
	default: [],
	description: 'Only changes with one of these reasons',
};

/** What a refusal of the block report (pages or count) means: its only input is the filters. */
export const BLOCK_FILTER_ERRORS = {
	400: 'The service refused the filters. Check the dates, the statuses and the reasons in Filters.',
};

/** What selects the block records; getBlocks and countBlocks share these. */
const blockSelection: INodeProperties[] = [
	{
		displayName: 'Contact IDs',
		name: 'contactIds',
		type: 'string',
		default: '',
		placeholder: 'e.g. 1001, 1002',
		description: 'Comma-separated platform IDs of the contacts to report on',
	},
	{
		displayName: 'E-Mails',
		name: 'emails',
		type: 'string',
		default: '',
		placeholder: 'e.g. ada@example.com, grace@example.com',
		description: 'Comma-separated e-mail addresses of the contacts to report on',
	},
	{
		displayName: 'Exclude Anonymous Blocks',
		name: 'excludeAnonymousBlocks',
		type: 'boolean',
		default: true,
		description:
			'Whether to leave out blocks that cannot be mapped to a contact (because of permission types or unsubscriptions)',
	},
	{
		displayName: 'External IDs',
		name: 'externalIds',
		type: 'string',
		default: '',
		placeholder: 'e.g. CRM-17, CRM-18',
		description: 'Comma-separated external IDs of the contacts to report on',
	},
	fromDate,
	newStatusFilter,
	{
		displayName: 'Old Status',
		name: 'oldStatus',
		type: 'options',
		options: statusOptions,
		default: 'allowed',
		description: 'Only changes from this status',
	},
	reasonsFilter,
	toDate,
];

/**
 * Contact fields added to each block: output, not selection. They live in `filters` (the
 * contract's stored names `filters.standardFields`/`filters.customFields`), because n8n keeps
 * a collection's values under its own name and a second visible collection named `filters`
 * would clash in the editor; their names and the collection's label say they are output.
 */
const outputFields: INodeProperties[] = [
	{
		displayName: 'Output Custom Fields',
		name: 'customFields',
		type: 'string',
		default: '',
		placeholder: 'e.g. shoe size, loyalty tier',
		description:
			'Not a filter: comma-separated names of custom contact fields whose values are added to each block (under contact, or customFields when simplified)',
	},
	{
		displayName: 'Output Standard Fields',
		name: 'standardFields',
		type: 'string',
		default: '',
		placeholder: 'e.g. FIRSTNAME, LASTNAME',
		description:
			'Not a filter: comma-separated names of standard contact fields whose values are added to each block (under contact, or standardFields when simplified)',
	},
];

const byDisplayName = (a: INodeProperties, b: INodeProperties) => a.displayName.localeCompare(b.displayName);

/** getBlocks: the filters plus the contact fields to add to each block. */
export const blockFiltersAndOutput: INodeProperties = {
	displayName: 'Filters and Output Fields',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add Filter or Output Field',
	default: {},
	options: [...blockSelection, ...outputFields].sort(byDisplayName),
};

/** countBlocks: only what can change a count. */
export const blockFilters: INodeProperties = {
	displayName: 'Filters',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add Filter',
	default: {},
	options: blockSelection,
};

/** The filters of the unsubscription-reasons report. */
export const periodFilters: INodeProperties = {
	displayName: 'Filters',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add Filter',
	default: {},
	options: [fromDate, toDate],
};

/** `from_date` and `to_date` from a filters collection, refusing a period that ends before it starts. */
export function periodQuery(filters: IDataObject, timeZone: string): { from_date?: number; to_date?: number } {
	const millis = (value: unknown, field: string) => (isEmpty(value) ? undefined : readDateTime(value, field, timeZone).toMillis());
	const from = millis(filters.fromDate, 'From');
	const to = millis(filters.toDate, 'To');
	if (from !== undefined && to !== undefined && from > to) {
		throw new InputProblem(
			'From is after To',
			'From is inclusive and To is exclusive: choose a From that is not later than To.',
		);
	}
	return { from_date: from, to_date: to };
}

/** The block report's query for one item's filters. */
export function blockFilterQuery(context: IExecuteFunctions, itemIndex: number): QueryParameters {
	const filters = parameter<IDataObject>(context, 'filters', itemIndex, {});
	const contactIds = splitList(filters.contactIds);
	const badId = contactIds.find((id) => !/^\d+$/.test(id));
	if (badId !== undefined) {
		throw new InputProblem(
			`Contact IDs contains "${badId}", which is not a contact ID`,
			'Contact IDs are whole numbers, separated by commas, e.g. 1001, 1002.',
		);
	}
	const reasons = splitList(filters.reasons);
	return {
		...periodQuery(filters, context.getTimezone()),
		ids: contactIds,
		emails: splitList(filters.emails),
		eids: splitList(filters.externalIds),
		reasons,
		old_status: (filters.oldStatus as string | undefined) || undefined,
		new_status: (filters.newStatus as string | undefined) || undefined,
		exclude_anonymous_blocks: filters.excludeAnonymousBlocks !== false,
		standard_field: splitList(filters.standardFields),
		custom_field: splitList(filters.customFields),
	};
}
