import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { FailurePolicy } from '../../helpers/itemResults';
import { itemError, outputItems, paired } from '../../helpers/itemResults';
import { isSet, readerFor, readInteger } from '../../helpers/parameters';
import { DEFAULT_HISTORY_SIZE, MAX_HISTORY_SIZE, SPEC_MAX_REQUEST_BYTES } from './create.description';
import { buildRecords } from './build';
import { sendOnce, skipRepeatedKeys } from './deduplication';
import type { SendableRecord } from './outcomes';
import { outcomeRenderer, settled, unsettled } from './outcomes';
import { Sender, transactionPoster } from './sender';

export { description } from './create.description';

/** Transaction › Create's node-wide settings, read once for all items. */
interface CreateSettings {
	inputMode: string;
	validateJsonContent: boolean;
	ignoreInvalid: boolean;
	/** The largest body to send until the service answers 413. */
	maxRequestBytes: number;
	dryRun: boolean;
	/** Present when the Deduplication Key option is on. */
	deduplication?: { historySize: number };
}

/**
 * Read option by option, for the first item: reading the whole Options collection would evaluate
 * the Deduplication Key's expression for the first item, which belongs to that item alone.
 */
function readCreateSettings(context: IExecuteFunctions): CreateSettings {
	const option = <T>(name: string, fallback: T): T => readerFor(context, `options.${name}`, fallback)(0);
	return {
		inputMode: readerFor(context, 'inputMode', 'fields')(0),
		validateJsonContent: option<unknown>('validateGenericOrderContent', false) === true,
		ignoreInvalid: option<unknown>('ignoreInvalidTransactions', true) !== false,
		maxRequestBytes: readInteger(option<unknown>('maxRequestBytes', SPEC_MAX_REQUEST_BYTES), 'Max Request Bytes', 1024, SPEC_MAX_REQUEST_BYTES),
		dryRun: option<unknown>('dryRun', false) === true,
		deduplication: isSet(context, 'options.deduplicationKey')
			? { historySize: readInteger(option<unknown>('deduplicationHistorySize', DEFAULT_HISTORY_SIZE), 'Deduplication History Size', 1, MAX_HISTORY_SIZE) }
			: undefined,
	};
}

/**
 * Every input item becomes one record, which the steps below settle in turn: refused while it is
 * built, skipped for its key, or sent (or in a dry run packed) and reported. The records then
 * become the output items, one per input item and paired with it.
 */
export async function execute(this: IExecuteFunctions, policy: FailurePolicy): Promise<INodeExecutionData[]> {
	let settings: CreateSettings;
	try {
		settings = readCreateSettings(this);
	} catch (problem) {
		return outputItems(policy, this.getInputData().map((_, itemIndex) => ({ error: itemError(this.getNode(), problem, itemIndex), pairedItem: paired(itemIndex) })));
	}
	const keyed = settings.deduplication !== undefined;
	const records = await buildRecords(this, { ...settings, keyed });
	if (keyed) skipRepeatedKeys(records);

	// Without continue-on-fail a refused item stops the node, before anything is sent.
	if (policy.continueOnFail || !records.some((record) => record.outcome?.kind === 'refused')) {
		const sender = new Sender(settings.dryRun ? undefined : transactionPoster(this, settings.ignoreInvalid), settings.maxRequestBytes, !policy.continueOnFail);
		const send = async (toSend: readonly SendableRecord[]) => await sender.send(toSend);
		if (settings.deduplication === undefined || settings.dryRun) await send(unsettled(records));
		else await sendOnce(this, settings.deduplication.historySize, records, send);
	}
	const render = outcomeRenderer(this, { keyed, dryRun: settings.dryRun });
	return outputItems(policy, settled(records).map(render));
}
