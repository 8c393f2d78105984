import { decodeXmlText, readXml, xmlProblem } from '../../nodes/MailingPlatform/transport/xml';

function parsed(text: string) {
	const data = readXml(text);
	if (data === undefined) throw new Error(xmlProblem(text));
	return data;
}

describe('reading the service\'s XML', () => {
	it('turns a one-element list into an array and types integers', () => {
		const data = parsed(
			'<?xml version="1.0"?><blocks><block><contact><id>42</id><email>a@b.c</email></contact><reason>blacklist</reason></block></blocks>',
		);
		expect(data).toEqual({ blocks: [{ contact: { id: 42, email: 'a@b.c' }, reason: 'blacklist' }] });
	});

	it('gives an empty array for an empty or self-closed list', () => {
		expect(parsed('<blocks></blocks>')).toEqual({ blocks: [] });
		expect(parsed('<contact><custom_fields/></contact>')).toEqual({ contact: { custom_fields: [] } });
	});

	it('turns nil="true" into null, with or without a namespace prefix', () => {
		const data = parsed(
			'<contact xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><external_id nil="true"/><standard_fields><field><name>FIRSTNAME</name><value xsi:nil="true"></value></field></standard_fields></contact>',
		);
		expect(data).toEqual({ contact: { external_id: null, standard_fields: [{ name: 'FIRSTNAME', value: null }] } });
	});

	it('keeps unknown elements and text that only looks like a number', () => {
		const data = parsed('<sendoutcheck><mailingid>7</mailingid><state>queued-later</state><extra><x>007</x></extra><reason>123</reason></sendoutcheck>');
		expect(data).toEqual({ sendoutcheck: { mailingid: 7, state: 'queued-later', extra: { x: '007' }, reason: '123' } });
	});

	it('keeps an integer element that is not an integer as text instead of guessing', () => {
		expect(parsed('<r><count>12a</count><id>99999999999999999999</id></r>')).toEqual({
			r: { count: '12a', id: '99999999999999999999' },
		});
	});

	it('decodes XML’s five entities and character references, and no others', () => {
		expect(parsed('<r><reason>other|Tom &amp; Jerry &lt;3 &quot;x&quot; &apos;y&apos; &gt; &#228;&#x1F600;</reason></r>')).toEqual({
			r: { reason: 'other|Tom & Jerry <3 "x" \'y\' > ä😀' },
		});
		expect(decodeXmlText('&nbsp;&copy;')).toBe('&nbsp;&copy;');
	});

	it('refuses a document that declares a DOCTYPE or entities, expanding nothing', () => {
		for (const text of [
			'<!DOCTYPE r [<!ENTITY boom "BOOM">]><r><reason>&boom;</reason></r>',
			'<?xml version="1.0"?>\n<!doctype r SYSTEM "file:///etc/passwd"><r/>',
		]) {
			expect(xmlProblem(text)).toContain('declares a DOCTYPE or entities');
			expect(readXml(text)).toBeUndefined();
		}
	});

	it('says why malformed XML, an HTML error page and an empty body cannot be read, instead of reading them', () => {
		expect(xmlProblem('<blocks><block></blocks>')).toContain('Malformed XML');
		expect(xmlProblem('<html><body><h1>502 Bad Gateway</h1><hr></body></html>')).toContain('Malformed XML');
		expect(xmlProblem('')).toBe('The answer is not XML');
		expect(xmlProblem('{"error":"json"}')).toBe('The answer is not XML');
		expect(readXml('<blocks><block></blocks>')).toBeUndefined();
	});

	it('keeps text that carries attributes as plain text', () => {
		expect(parsed('<contact><external_id nil="false">A-1</external_id></contact>')).toEqual({ contact: { external_id: 'A-1' } });
	});
});
