import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

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

function wholeNumber(
	context: IExecuteFunctions,
	name: string,
	fallback: number,
	range: { min: number; max: number; label: string; hint: string },
): number {
	const value = Number(context.getNodeParameter(name, 0, fallback));
	if (!Number.isInteger(value) || value < range.min || value > range.max) {
		throw new NodeOperationError(
			context.getNode(),
			`${range.label} must be a whole number from ${range.min.toLocaleString('en-US')} to ${range.max.toLocaleString('en-US')}`,
			{ description: range.hint },
		);
	}
	return value;
}

export function readCreateSettings(context: IExecuteFunctions): CreateSettings {
	const options = context.getNodeParameter('options', 0, {}) as Record<string, unknown>;
	const node = context.getNode();
	return {
		inputMode: context.getNodeParameter('inputMode', 0, 'fields') as string,
		validateJsonContent: options.validateGenericOrderContent === true,
		ignoreInvalid: options.ignoreInvalidTransactions !== false,
		maxRequestBytes: wholeNumber(context, 'options.maxRequestBytes', SPEC_MAX_REQUEST_BYTES, {
			min: 1024,
			max: SPEC_MAX_REQUEST_BYTES,
			label: 'Max Request Bytes',
			hint: 'Remove the option to use the service’s limit of 9,000,000 bytes.',
		}),
		dryRun: options.dryRun === true,
		deduplication:
			options.deduplicationKey === undefined
				? undefined
				: {
						historySize: wholeNumber(context, 'options.deduplicationHistorySize', DEFAULT_HISTORY_SIZE, {
							min: 1,
							max: MAX_HISTORY_SIZE,
							label: 'Deduplication History Size',
							hint: 'Remove the option to keep the last 10,000 keys.',
						}),
					},
		continueOnFail: context.continueOnFail(),
		errorOutput: node.onError === 'continueErrorOutput',
	};
}
