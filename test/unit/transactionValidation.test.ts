import { base64DecodedBytes, isExecutable } from '../../nodes/MailingPlatform/actions/transaction/attachments';
import { checkedTransaction, JSON_LABELS } from '../../nodes/MailingPlatform/actions/transaction/transaction';
import { InputProblem } from '../../nodes/MailingPlatform/helpers/values';

/** The refusal's message, or undefined when the transaction passes. */
function transactionProblem(transaction: unknown): string | undefined {
	try {
		checkedTransaction(transaction, JSON_LABELS);
		return undefined;
	} catch (error) {
		if (!(error instanceof InputProblem)) throw error;
		return error.message;
	}
}

describe('checking a transaction before sending', () => {
	const valid = { type: 1, contact: { email: 'anna@example.com' }, content: { 'order.total': 1 } };

	it('accepts the contact form, the import form with content inside import, and a type by name', () => {
		expect(transactionProblem(valid)).toBeUndefined();
		expect(transactionProblem({ typeName: 'generic order', import: { contact: { email: 'new@example.com', permission: 6 }, content: {} } })).toBeUndefined();
	});

	it('names the field that is wrong', () => {
		expect(transactionProblem({ ...valid, type: undefined })).toBe(
			'"type" or "typeName" is missing: set the transaction type by ID or by name',
		);
		expect(transactionProblem({ ...valid, type: '1' })).toContain('positive whole number');
		expect(transactionProblem({ ...valid, contact: { email: ' ', id: 0 } })).toContain('"contact" (or "import.contact") is missing');
		expect(transactionProblem({ ...valid, content: [] })).toBe('"content" must be a JSON object');
		expect(transactionProblem([valid])).toBe('The transaction must be a JSON object');
	});

	it('refuses permission 1 and values outside 2 to 6', () => {
		const withPermission = (permission: unknown) => ({
			type: 1,
			import: { contact: { email: 'new@example.com', permission } },
			content: {},
		});
		expect(transactionProblem(withPermission(1))).toContain('is 1 (none)');
		for (const permission of [0, 7, 2.5, '3', undefined]) {
			expect(transactionProblem(withPermission(permission))).toBe(
				'"import.contact.permission" must be a whole number from 2 to 6',
			);
		}
	});

	it('refuses executables and attachments above 1,000,000 decoded bytes', () => {
		const attach = (filename: string, mimetype: string, bytes: number) => ({
			...valid,
			attachments: [{ filename, mimetype, data: Buffer.alloc(bytes).toString('base64') }],
		});
		expect(transactionProblem(attach('invoice.pdf', 'application/pdf', 1_000_000))).toBeUndefined();
		expect(transactionProblem(attach('invoice.pdf', 'application/pdf', 1_000_001))).toContain('1,000,001 bytes, more than 1,000,000 bytes');
		expect(transactionProblem(attach('INSTALL.EXE', 'application/pdf', 10))).toContain('executable');
		expect(transactionProblem({ ...valid, attachments: [{ filename: 'a.pdf' }] })).toContain('needs "filename"');
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
