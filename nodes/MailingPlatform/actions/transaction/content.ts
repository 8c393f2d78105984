import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { InputProblem, isEmpty } from '../../helpers/values';
import { parseJsonObject, readerFor } from '../../helpers/parameters';
import { checkedGenericOrderContent, GENERIC_ORDER_KEYS, valueAt } from '../../genericOrder';

/** What n8n stores for a resource mapper parameter, as far as content needs it. */
interface MappedFields {
	mappingMode?: string;
	value?: IDataObject | null;
	attemptToConvertTypes?: boolean;
}

interface ExtraFields {
	field?: Array<{ key?: string; value?: unknown }>;
}

export const CONTENT_LABEL = 'Content';

/** Mapped values with the empty ones left out: the keys the user gave a value, flat as the spec shows them. */
function mappedValues(fields: MappedFields, item: IDataObject): Record<string, unknown> {
	const content: Record<string, unknown> = {};
	const source = fields.mappingMode === 'autoMapInputData' ? [...GENERIC_ORDER_KEYS.keys()].map((key) => [key, valueAt(item, key)] as const) : Object.entries(fields.value ?? {});
	for (const [key, value] of source) if (!isEmpty(value)) content[key] = value;
	return content;
}

/** The content of one item in Fields input mode: the Content JSON, or the mapped fields checked and converted. */
export function contentReader(context: IExecuteFunctions, validateJson: boolean): (itemIndex: number) => Record<string, unknown> {
	const mode = readerFor(context, 'contentMode', 'json');
	const json = readerFor<unknown>(context, 'content', '{}');
	const mapped = readerFor<MappedFields>(context, 'contentFields', {});
	const extra = readerFor<ExtraFields>(context, 'extraContentFields', {});
	const items = context.getInputData();

	return (itemIndex) => {
		if (mode(itemIndex) !== 'mapped') {
			const content = parseJsonObject(json(itemIndex), CONTENT_LABEL);
			return validateJson ? checkedGenericOrderContent(content, true, CONTENT_LABEL) : content;
		}
		const fields = mapped(itemIndex) ?? {};
		const content = mappedValues(fields, items[itemIndex].json);
		for (const { key, value } of extra(itemIndex)?.field ?? []) {
			const name = String(key ?? '').trim();
			if (name === '') throw new InputProblem('Extra Content Fields: an entry has no key', 'Give the entry a key, or remove it.');
			if (!isEmpty(value)) content[name] = value;
		}
		return checkedGenericOrderContent(content, fields.attemptToConvertTypes !== false, 'Content Fields');
	};
}
