import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { thousands } from '../../helpers/numbers';
import { isPlainObject } from '../../helpers/objects';
import { SPEC_MAX_REQUEST_BYTES } from './packing';

export const DEFAULT_HISTORY_SIZE = 10_000;
/** n8n's store reads and writes a node's whole history at once: a bound keeps that row small. */
export const MAX_HISTORY_SIZE = 1_000_000;

/** Transaction › Create's node-wide settings, read once for all items. */
export interface CreateSettings {
	inputMode: string;
	validateJsonContent: boolean;
	ignoreInvalid: boolean;
	/** The largest body to send until the service answers 413. */
	maxRequestBytes: number;
	dryRun: boolean;
	/** Present when the Deduplication Key option is on. */
	deduplication?: { historySize: number };
	continueOnFail: boolean;
	errorOutput: boolean;
}

function wholeNumber(context: IExecuteFunctions, raw: unknown, range: { min: number; max: number; label: string; hint: string }): number {
	const value = Number(raw);
	if (!Number.isInteger(value) || value < range.min || value > range.max) {
		throw new NodeOperationError(
			context.getNode(),
			`${range.label} must be a whole number from ${thousands(range.min)} to ${thousands(range.max)}`,
			{ description: range.hint },
		);
	}
	return value;
}

/**
 * Read option by option: reading the whole Options collection would evaluate the Deduplication
 * Key's expression for the first item, which belongs to that item alone.
 */
export function readCreateSettings(context: IExecuteFunctions): CreateSettings {
	const option = (name: string, fallback: unknown): unknown => context.getNodeParameter(`options.${name}`, 0, fallback);
	const options: unknown = context.getNode().parameters.options;
	const keyed = isPlainObject(options) && options.deduplicationKey !== undefined;
	return {
		inputMode: context.getNodeParameter('inputMode', 0, 'fields') as string,
		validateJsonContent: option('validateGenericOrderContent', false) === true,
		ignoreInvalid: option('ignoreInvalidTransactions', true) !== false,
		maxRequestBytes: wholeNumber(context, option('maxRequestBytes', SPEC_MAX_REQUEST_BYTES), {
			min: 1024,
			max: SPEC_MAX_REQUEST_BYTES,
			label: 'Max Request Bytes',
			hint: 'Remove the option to use the service’s limit of 9,000,000 bytes.',
		}),
		dryRun: option('dryRun', false) === true,
		deduplication: keyed
			? {
					historySize: wholeNumber(context, option('deduplicationHistorySize', DEFAULT_HISTORY_SIZE), {
						min: 1,
						max: MAX_HISTORY_SIZE,
						label: 'Deduplication History Size',
						hint: 'Remove the option to keep the last 10,000 keys.',
					}),
				}
			: undefined,
		continueOnFail: context.continueOnFail(),
		errorOutput: context.getNode().onError === 'continueErrorOutput',
	};
}
