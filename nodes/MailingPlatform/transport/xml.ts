import { XMLParser, XMLValidator } from '../../../bundled/fastXmlParser';
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../helpers/values';
import type { ServiceContext } from './errors';
import { serviceError } from './errors';

/**
 * The service's XML vocabulary, from the API spec. Everything XML passes through `parseXml`,
 * so every operation sees the same shapes: lists are always arrays, `nil="true"` is null and
 * integers are numbers. Unknown elements pass through as text or objects.
 */

/** Wrapper elements whose children form a list, and the name of one child. */
const LIST_ELEMENTS: Readonly<Record<string, string>> = {
	blocks: 'block',
	unsubscription_reasons: 'unsubscription_reason',
	standard_fields: 'field',
	custom_fields: 'field',
};

/** Elements the spec types as integer. */
const INTEGER_ELEMENTS = new Set(['id', 'mailingid', 'count']);

const LIST_ITEM_ELEMENTS = new Set(Object.values(LIST_ELEMENTS));

const XML_REFERENCE = /&(lt|gt|amp|apos|quot|#[0-9]+|#x[0-9a-fA-F]+);/g;
const XML_NAMED_ENTITIES: Readonly<Record<string, string>> = {
	lt: '<',
	gt: '>',
	amp: '&',
	apos: "'",
	quot: '"',
};

/**
 * Decodes XML's five named entities and numeric character references; nothing else.
 * Entities declared in a DOCTYPE are never expanded.
 */
export function decodeXmlText(text: string): string {
	return text.replace(XML_REFERENCE, (reference: string, name: string) => {
		if (name[0] !== '#') return XML_NAMED_ENTITIES[name];
		const codePoint = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
		return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : reference;
	});
}

const ATTRIBUTES = ':@attributes';

const parser = new XMLParser({
	ignoreAttributes: false,
	attributesGroupName: ATTRIBUTES,
	attributeNamePrefix: '',
	removeNSPrefix: true,
	parseTagValue: false,
	parseAttributeValue: false,
	processEntities: false,
	htmlEntities: false,
	ignoreDeclaration: true,
	ignorePiTags: true,
	trimValues: true,
	tagValueProcessor: (_tagName, value) => decodeXmlText(value),
	attributeValueProcessor: (_name, value) => decodeXmlText(value),
	isArray: (tagName) => LIST_ITEM_ELEMENTS.has(tagName),
});

/** A document type declaration, the only place XML can declare entities. */
const DOCUMENT_TYPE_DECLARATION = /<!(DOCTYPE|ENTITY)\b/i;

const toData = (text: string) => normalise(parser.parse(text), '') as IDataObject;

/** Why `text` is not XML this package reads, if it is not. */
export function xmlProblem(text: string): string | undefined {
	if (!text.trimStart().startsWith('<')) return 'The answer is not XML';
	// The service's vocabulary needs no DOCTYPE: one declaring entities is refused whole, so no
	// declared entity can be expanded or leak into items as literal `&name;` text.
	if (DOCUMENT_TYPE_DECLARATION.test(text)) return 'it declares a DOCTYPE or entities, which the service never sends; nothing was expanded';
	const validation = XMLValidator.validate(text);
	return validation === true ? undefined : `Malformed XML at line ${validation.err.line}: ${validation.err.msg}`;
}

/** The data of `text`, or undefined when it is not XML this package reads (see `xmlProblem`). */
export function readXml(text: string): IDataObject | undefined {
	return xmlProblem(text) === undefined ? toData(text) : undefined;
}

/**
 * The service's XML answer as plain data (an empty body is `{}`); an answer that is not its XML
 * fails as a service error naming `request`, with nothing of it used.
 */
export function parseXml(
	context: ServiceContext,
	response: { statusCode: number; body: string },
	request: { name: string; part?: string; itemIndex?: number },
): IDataObject {
	if (response.body.trim() === '') return {};
	const problem = xmlProblem(response.body);
	if (problem === undefined) return toData(response.body);
	throw serviceError(
		context,
		{
			message: `The service's answer to ${request.name} could not be read: ${problem}${request.part === undefined ? '' : ` (${request.part})`}`,
			description: 'Nothing of it was used. If this persists, report it with the workflow to the package maintainers.',
			httpCode: response.statusCode,
		},
		request.itemIndex,
	);
}

type Parsed = string | Parsed[] | { [name: string]: Parsed };

function isNil(attributes: unknown): boolean {
	return isPlainObject(attributes) && String(attributes.nil).toLowerCase() === 'true';
}

function typeInteger(value: string): number | string {
	return /^-?\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value;
}

function normalise(value: Parsed, elementName: string): unknown {
	if (Array.isArray(value)) return value.map((entry) => normalise(entry, elementName));

	if (typeof value !== 'object') {
		if (LIST_ELEMENTS[elementName] !== undefined) return []; // e.g. <custom_fields/>
		return INTEGER_ELEMENTS.has(elementName) ? typeInteger(value) : value;
	}

	if (isNil(value[ATTRIBUTES])) return null;

	const listItemName = LIST_ELEMENTS[elementName];
	if (listItemName !== undefined) {
		const listItems = value[listItemName];
		return listItems === undefined ? [] : normalise(listItems, listItemName);
	}

	const childNames = Object.keys(value).filter((name) => name !== ATTRIBUTES);
	// Text with attributes, such as <external_id nil="false">A1</external_id>, is the text.
	if (childNames.length === 1 && childNames[0] === '#text') {
		return normalise(value['#text'], elementName);
	}

	const result: Record<string, unknown> = {};
	for (const name of childNames) {
		result[name === '#text' ? 'value' : name] = normalise(value[name], name === '#text' ? elementName : name);
	}
	// An element with attributes only, such as <external_id nil="false"/>, is empty text.
	return Object.keys(result).length === 0 ? '' : result;
}
