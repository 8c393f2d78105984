import { isPlainObject } from '../helpers/values';
import { decodeXmlText, readXml } from './xml';

/**
 * The service's own words in an error answer, whatever the format: the spec's XML
 * `<error><message>`, but the real service also answers some errors as plain text.
 */

/** How much of the service's text a message quotes. */
const MAX_QUOTED_CHARACTERS = 300;

/**
 * `text` as one line of at most 300 characters (an ellipsis marks a cut), for a message.
 * An `Authorization` header the answer echoes is cut out, so no credential reaches an error.
 */
export function oneLine(text: string): string {
	const line = text
		.replace(/\bauthorization\s*[:=]\s*"?(basic|bearer)\s+[^\s",;]+/gi, 'Authorization: (removed)')
		.replace(/[\s\p{Cc}]+/gu, ' ')
		.trim();
	const characters = Array.from(line);
	if (characters.length <= MAX_QUOTED_CHARACTERS) return line;
	return `${characters.slice(0, MAX_QUOTED_CHARACTERS - 1).join('').trimEnd()}…`;
}

const withoutTags = (markup: string) => decodeXmlText(markup.replace(/<[^>]*>/g, ' '));

/** The `<message>` of the spec's `<error>` body; otherwise all the XML's text. */
function xmlWords(body: string): string {
	const error = readXml(body)?.error;
	if (isPlainObject(error) && typeof error.message === 'string') return error.message;
	return withoutTags(body);
}

/** The usual message fields of a JSON error body; the JSON itself when it has none. */
function jsonWords(body: string): string {
	let value: unknown;
	try {
		value = JSON.parse(body);
	} catch {
		return body;
	}
	if (!isPlainObject(value)) return body;
	const error = value.error;
	const candidates = [value.message, isPlainObject(error) ? error.message : error, value.detail, value.title];
	const words = candidates.find((candidate) => typeof candidate === 'string' && candidate.trim() !== '');
	return typeof words === 'string' ? words : body;
}

/** The title, or else the first heading, of an HTML page: the rest is layout, styles and scripts. */
function htmlTitle(page: string): string {
	const heading = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(page) ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(page);
	return heading === null ? '' : withoutTags(heading[1]);
}

const HTML_PAGE = /^(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<(!doctype\s+html|html)[\s>]/i;

/**
 * The message of an error answer: the service's own words, one line, bounded, from its XML
 * error, a JSON body's message or its plain text. An HTML page comes from a proxy or gateway
 * in front of the service, so the status leads, followed by the page's title if it adds to it.
 * Without words, the status alone.
 */
export function errorAnswerMessage(body: string, status: number, statusText?: string): string {
	const answered = `The service answered ${status}${statusText ? ` ${statusText}` : ''}`;
	const text = body.trim();
	if (HTML_PAGE.test(text)) {
		const title = oneLine(htmlTitle(text));
		return title === '' || answered.includes(title) ? answered : `${answered}: ${title}`;
	}
	const words = oneLine(text.startsWith('<') ? xmlWords(text) : text.startsWith('{') ? jsonWords(text) : text);
	return words === '' ? answered : words;
}
