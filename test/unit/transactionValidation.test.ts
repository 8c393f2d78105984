import {
	JSON_LABELS,
	base64DecodedBytes,
	isExecutable,
	transactionProblem,
} from '../../nodes/MailingPlatform/actions/transaction/validation';

describe('checking a transaction before sending', () => {
	const valid = { type: 1, contact: { email: 'anna@example.com' }, content: { 'order.total': 1 } };

	it('accepts the contact form, the import form with content inside import, and a type by name', () => {
		expect(transactionProblem(valid, JSON_LABELS)).toBeUndefined();
		expect(
			transactionProblem(
				{ typeName: 'generic order', import: { contact: { email: 'new@example.com', permission: 6 }, content: {} } },
				JSON_LABELS,
			),
		).toBeUndefined();
	});

	it('names the field that is wrong', () => {
		expect(transactionProblem({ ...valid, type: undefined }, JSON_LABELS)).toBe(
			'"type" or "typeName" is missing: set the transaction type by ID or by name',
		);
		expect(transactionProblem({ ...valid, type: '1' }, JSON_LABELS)).toContain('positive whole number');
		expect(transactionProblem({ ...valid, contact: { email: ' ', id: 0 } }, JSON_LABELS)).toContain('"contact" (or "import.contact") is missing');
		expect(transactionProblem({ ...valid, content: [] }, JSON_LABELS)).toBe('"content" must be a JSON object');
		expect(transactionProblem([valid], JSON_LABELS)).toBe('The transaction must be a JSON object');
	});

	it('refuses permission 1 and values outside 2 to 6', () => {
		const withPermission = (permission: unknown) => ({
			type: 1,
			import: { contact: { email: 'new@example.com', permission } },
			content: {},
		});
		expect(transactionProblem(withPermission(1), JSON_LABELS)).toContain('is 1 (none)');
		for (const permission of [0, 7, 2.5, '3', undefined]) {
			expect(transactionProblem(withPermission(permission), JSON_LABELS)).toBe(
				'"import.contact.permission" must be a whole number from 2 to 6',
			);
		}
	});

	it('refuses executables and attachments above 1,000,000 decoded bytes', () => {
		const attach = (filename: string, mimetype: string, bytes: number) => ({
			...valid,
			attachments: [{ filename, mimetype, data: Buffer.alloc(bytes).toString('base64') }],
		});
		expect(transactionProblem(attach('invoice.pdf', 'application/pdf', 1_000_000), JSON_LABELS)).toBeUndefined();
		expect(transactionProblem(attach('invoice.pdf', 'application/pdf', 1_000_001), JSON_LABELS)).toContain('1,000,001 bytes');
		expect(transactionProblem(attach('INSTALL.EXE', 'application/pdf', 10), JSON_LABELS)).toContain('executable');
		expect(transactionProblem({ ...valid, attachments: [{ filename: 'a.pdf' }] }, JSON_LABELS)).toContain('needs "filename"');
	});

	it('judges executables by extension and by MIME type', () => {
		expect(isExecutable('report.pdf', 'application/pdf')).toBe(false);
		expect(isExecutable('run.ps1', 'text/plain')).toBe(true);
		expect(isExecutable('file', 'application/x-msdownload; charset=binary')).toBe(true);
	});

	it('measures Base64 after decoding', () => {
		for (const bytes of [0, 1, 2, 3, 1000, 1001]) {
			expect(base64DecodedBytes(Buffer.alloc(bytes, 1).toString('base64'))).toBe(bytes);
		}
	});
});
