/** Minimal XML writing for the double; values are escaped as the real service must. */

export function escapeXml(text: string): string {
	return text
		.replace(/&/g, '&amp;')
		.replace(/</g, '&lt;')
		.replace(/>/g, '&gt;')
		.replace(/"/g, '&quot;')
		.replace(/'/g, '&apos;');
}

export type XmlValue = string | number | boolean | null | XmlElement[] | { [name: string]: XmlValue };
export type XmlElement = { [name: string]: XmlValue };

/** `{ a: 1, b: null, c: [{ d: 'x' }] }` -> `<a>1</a><b nil="true"/><c><d>x</d></c>`. */
export function toXml(element: XmlElement): string {
	let xml = '';
	for (const [name, value] of Object.entries(element)) {
		if (value === null) xml += `<${name} nil="true"/>`;
		else if (Array.isArray(value)) xml += `<${name}>${value.map(toXml).join('')}</${name}>`;
		else if (typeof value === 'object') xml += `<${name}>${toXml(value)}</${name}>`;
		else xml += `<${name}>${escapeXml(String(value))}</${name}>`;
	}
	return xml;
}

export function xmlDocument(element: XmlElement): string {
	return `<?xml version="1.0" encoding="UTF-8"?>\n${toXml(element)}`;
}

export function errorDocument(message: string): string {
	return xmlDocument({ error: { message } });
}
