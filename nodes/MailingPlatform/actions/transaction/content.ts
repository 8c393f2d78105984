import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { InputProblem, isEmpty } from '../../helpers/input';

import { GENERIC_ORDER_KEYS } from './genericOrder';
import { checkGenericOrderContent, valueAt } from './genericOrderContent';
import { parseJsonObject, readerFor } from '../../helpers/parameters';

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
export const MAPPED_LABEL = 'Content Fields';
const EXTRA_LABEL = 'Extra Content Fields';

/** Mapped values with the empty ones left out: the keys the user gave a value, flat as the spec shows them. */
function mappedValues(fields: MappedFields, item: IDataObject): Record<string, unknown> {
	const content: Record<string, unknown> = {};
	if (fields.mappingMode === 'autoMapInputData') {
		for (const key of GENERIC_ORDER_KEYS.keys()) {
			const value = valueAt(item, key);
			if (!isEmpty(value)) content[key] = value;
		}
		return content;
	}
	for (const [key, value] of Object.entries(fields.value ?? {})) {
		if (!isEmpty(value)) content[key] = value;
	}
	return content;
}

/** Reads the content of one item in Fields input mode: the Content JSON, or the mapped fields checked and converted. */
export function contentReader(context: IExecuteFunctions, validateJson: boolean) {
	const mode = readerFor(context, 'contentMode', 'json');
	const json = readerFor<unknown>(context, 'content', '{}');
	const mapped = readerFor<MappedFields>(context, 'contentFields', {});
	const extra = readerFor<ExtraFields>(context, 'extraContentFields', {});

	return (itemIndex: number, item: IDataObject): Record<string, unknown> => {
		if (mode(itemIndex) !== 'mapped') {
			const content = parseJsonObject(json(itemIndex), CONTENT_LABEL);
			return validateJson ? checked(content, true, CONTENT_LABEL) : content;
		}
		const fields = mapped(itemIndex) ?? {};
		const content = mappedValues(fields, item);
		for (const { key, value } of extra(itemIndex)?.field ?? []) {
			const name = String(key ?? '').trim();
			if (name === '') throw new InputProblem(`${EXTRA_LABEL}: an entry has no key`, 'Give the entry a key, or remove it.');
			if (!isEmpty(value)) content[name] = value;
		}
		return checked(content, fields.attemptToConvertTypes !== false, MAPPED_LABEL);
	};
}

/** The content with the generic order type's keys checked, or a refusal naming the key and the value. */
export function checked(content: Record<string, unknown>, convert: boolean, label: string): Record<string, unknown> {
	const result = checkGenericOrderContent(content, convert);
	if (!result.ok) throw new InputProblem(`${label}: ${result.problem}`, result.hint);
	return result.content;
}
