import { isPlainObject } from '../../../nodes/MailingPlatform/helpers/values';
import type { FaultInjector } from '../faults';
import type { DoubleRequest, DoubleResponse } from '../http';
import { jsonResponse, xmlError } from '../http';

export interface DoubleContact {
	id: number;
	email?: string;
	externalId?: string;
	permission?: number;
}

/** What the double keeps of a queued transaction: enough to check order and exactly-once. */
export interface QueuedTransaction {
	contactId: number;
	typeId: number;
	/** `order.id` of the content (flat or grouped), when there is one. */
	orderId?: string;
	attachments?: Array<{ filename: string; mimetype: string; data: Buffer }>;
	/** The transaction as received; kept only while `keepTransactions` is on. */
	transaction?: Record<string, unknown>;
}

interface ReportEntry {
	contact: Record<string, unknown>;
	queued: boolean | string;
	message?: string;
}

const GENERIC_ORDER_FLOATS = ['subtotal', 'shipping_fee', 'tax_rate', 'tax_amount', 'credit', 'total'];
const EXECUTABLE = /\.(exe|com|bat|cmd|msi|scr|pif|dll|vbs|js|jar|ps1|sh)$/i;
const NO_CONTACT = 'No valid contact identification provided for transaction.';

/** A value of the content given flat (`order.total`) or grouped (`order: { total }`). */
function contentValue(content: Record<string, unknown>, group: string, key: string): unknown {
	if (`${group}.${key}` in content) return content[`${group}.${key}`];
	const grouped = content[group];
	return isPlainObject(grouped) ? grouped[key] : undefined;
}

/** `order.id` of a transaction's content (flat or grouped, plain or import form) as text, if it has one. */
function orderIdOf(transaction: unknown): string | undefined {
	if (!isPlainObject(transaction)) return undefined;
	const content = transaction.content ?? (isPlainObject(transaction.import) ? transaction.import.content : undefined);
	const orderId = isPlainObject(content) ? contentValue(content, 'order', 'id') : undefined;
	return orderId === undefined ? undefined : String(orderId);
}

/**
 * POST transactions as the spec describes it: a JSON array, one report entry per transaction,
 * `ignore_invalid_transactions`, the import form creating missing contacts, content checks of
 * the generic order type, the attachment limit and no executables.
 */
export class TransactionsArea {
	readonly types = new Map<number, string>([
		[1, 'generic order'],
		[2, 'shipping notice'],
		[3, 'password reset'],
	]);

	readonly contacts: DoubleContact[] = [
		{ id: 1001, email: 'anna@example.com', externalId: 'C-1001', permission: 5 },
		{ id: 1002, email: 'ben@example.com', externalId: 'C-1002', permission: 2 },
		{ id: 1003, email: 'carla@example.com', permission: 6 },
	];

	/** Every queued transaction, in the order it was queued. */
	readonly queued: QueuedTransaction[] = [];

	/** Transactions received in requests that reached this area (answered 200 or 400). */
	receivedCount = 0;

	/** Whether to keep each queued transaction whole (off for large benchmarks). */
	keepTransactions = true;

	private readonly byEmail = new Map<string, DoubleContact>();
	private readonly byExternalId = new Map<string, DoubleContact>();
	private readonly byId = new Map<number, DoubleContact>();
	private nextContactId = 5000;

	constructor(private readonly faults: FaultInjector) {
		for (const contact of this.contacts) this.index(contact);
	}

	/** Order IDs of the queued transactions, in order. */
	queuedOrderIds(): Array<string | undefined> {
		return this.queued.map((transaction) => transaction.orderId);
	}

	handle(request: DoubleRequest): DoubleResponse | undefined {
		if (request.segments[0] !== 'transactions') return undefined;
		if (request.segments.length > 1) return xmlError(404, 'Not found.');
		if (request.method !== 'POST') return xmlError(405, 'Method not allowed.');
		if (!String(request.headers['content-type'] ?? '').startsWith('application/json')) {
			return xmlError(415, 'Transactions must be sent as application/json.');
		}
		let body: unknown;
		try {
			body = JSON.parse(request.body.toString('utf8'));
		} catch {
			return xmlError(400, 'The request body is not valid JSON.');
		}
		if (!Array.isArray(body)) return xmlError(400, 'The request body must be a JSON array of transactions.');
		request.orders = body.map(orderIdOf);
		if (body.some((transaction) => this.faults.unavailableForOrders.has(orderIdOf(transaction) ?? ''))) {
			const unavailable = xmlError(503, 'The service is temporarily unavailable.');
			const retryAfter = this.faults.unavailableRetryAfter;
			return retryAfter === undefined ? unavailable : { ...unavailable, headers: { ...unavailable.headers, 'Retry-After': retryAfter } };
		}
		const ignoreInvalid = request.query.get('ignore_invalid_transactions') !== 'false';
		this.receivedCount += body.length;

		// Judge everything first: with ignore_invalid_transactions=false nothing may be queued.
		const created = new Map<string, DoubleContact>();
		const outcomes = body.map((transaction) => this.judge(transaction, created));
		const invalid = outcomes.find((outcome) => 'message' in outcome);
		if (!ignoreInvalid && invalid !== undefined && 'message' in invalid) {
			return xmlError(400, invalid.message);
		}

		const reports: ReportEntry[] = [];
		const pending = new Set(created.values());
		for (const [index, outcome] of outcomes.entries()) {
			if ('message' in outcome) {
				reports.push({ contact: outcome.contact, queued: this.queuedValue(false), message: outcome.message });
				continue;
			}
			if (pending.delete(outcome.contactRecord)) {
				this.contacts.push(outcome.contactRecord);
				this.index(outcome.contactRecord);
			}
			this.queued.push(this.record(body[index] as Record<string, unknown>, outcome));
			reports.push({ contact: this.identification(outcome.contactRecord), queued: this.queuedValue(true) });
		}
		if (this.faults.reportsReversed) reports.reverse();
		return jsonResponse(200, { [this.faults.reportWrapper]: reports });
	}

	private queuedValue(queued: boolean): boolean | string {
		return this.faults.queuedAsString ? String(queued) : queued;
	}

	private index(contact: DoubleContact): void {
		this.byId.set(contact.id, contact);
		if (contact.email !== undefined) this.byEmail.set(contact.email.toLowerCase(), contact);
		if (contact.externalId !== undefined) this.byExternalId.set(contact.externalId, contact);
	}

	private identification(contact: DoubleContact): Record<string, unknown> {
		const result: Record<string, unknown> = { id: contact.id };
		if (contact.email !== undefined) result.email = contact.email;
		if (contact.externalId !== undefined) result.external_id = contact.externalId;
		return result;
	}

	private find(given: Record<string, unknown>, created: Map<string, DoubleContact>): DoubleContact | undefined {
		if (typeof given.id === 'number') return this.byId.get(given.id);
		if (typeof given.email === 'string') {
			const key = given.email.toLowerCase();
			return this.byEmail.get(key) ?? created.get(key);
		}
		if (typeof given.external_id === 'string') return this.byExternalId.get(given.external_id);
		return undefined;
	}

	private judge(
		raw: unknown,
		created: Map<string, DoubleContact>,
	):
		| { message: string; contact: Record<string, unknown> }
		| { contactRecord: DoubleContact; typeId: number; content: Record<string, unknown> } {
		if (!isPlainObject(raw)) return { message: 'A transaction must be a JSON object.', contact: {} };
		const imported = isPlainObject(raw.import) ? raw.import : undefined;
		const given = isPlainObject(imported?.contact) ? imported.contact : isPlainObject(raw.contact) ? raw.contact : {};
		const echo = Object.fromEntries(
			Object.entries(given).filter(([key]) => ['id', 'email', 'external_id'].includes(key)),
		);
		const refuse = (message: string) => ({ message, contact: echo });

		let typeId: number | undefined;
		if (raw.type !== undefined) {
			if (typeof raw.type !== 'number' || !this.types.has(raw.type)) {
				return refuse(`Transaction type with id ${String(raw.type)} not found.`);
			}
			typeId = raw.type;
		} else if (typeof raw.typeName === 'string') {
			typeId = [...this.types].find(([, name]) => name === raw.typeName)?.[0];
			if (typeId === undefined) return refuse(`Transaction type with name '${raw.typeName}' not found.`);
		} else {
			return refuse('No transaction type provided for transaction.');
		}

		let contactRecord = this.find(given, created);
		if (imported !== undefined) {
			const permission = given.permission;
			if (typeof permission !== 'number' || !Number.isInteger(permission) || permission < 1 || permission > 6) {
				return refuse('Invalid permission provided for transaction.');
			}
			if (permission === 1) return refuse('Permission 1 (none) must not be used for transactions.');
			if (contactRecord === undefined) {
				if (typeof given.email !== 'string' || given.email === '') return refuse(NO_CONTACT);
				contactRecord = {
					id: this.nextContactId++,
					email: given.email,
					...(typeof given.external_id === 'string' ? { externalId: given.external_id } : {}),
					permission,
				};
				created.set(given.email.toLowerCase(), contactRecord);
			}
		}
		if (contactRecord === undefined) return refuse(NO_CONTACT);

		const content = raw.content ?? imported?.content;
		if (!isPlainObject(content)) return refuse('The transaction content must be an object.');
		if (typeId === 1) {
			for (const key of GENERIC_ORDER_FLOATS) {
				const value = contentValue(content, 'order', key);
				if (value !== undefined && value !== null && typeof value !== 'number') {
					return refuse(`The provided attribute 'order.${key}' cannot be transformed: double expected.`);
				}
			}
		}

		if (raw.attachments !== undefined) {
			if (!Array.isArray(raw.attachments)) return refuse('Attachments must be an array.');
			let total = 0;
			for (const attachment of raw.attachments as unknown[]) {
				if (!isPlainObject(attachment) || typeof attachment.data !== 'string' || typeof attachment.filename !== 'string') {
					return refuse('Each attachment needs filename, mimetype and data.');
				}
				if (EXECUTABLE.test(attachment.filename) || attachment.mimetype === 'application/x-msdownload') {
					return refuse(`Executable files are not allowed as attachments: ${attachment.filename}.`);
				}
				total += Buffer.from(attachment.data, 'base64').length;
			}
			if (total > 1_000_000) return refuse('The attachments exceed 1,000,000 bytes.');
		}
		if (this.faults.notQueuedOrders.has(orderIdOf(raw) ?? '')) return refuse('The transaction could not be queued now.');
		return { contactRecord, typeId, content };
	}

	private record(
		raw: Record<string, unknown>,
		outcome: { contactRecord: DoubleContact; typeId: number; content: Record<string, unknown> },
	): QueuedTransaction {
		const orderId = orderIdOf(raw);
		const queued: QueuedTransaction = { contactId: outcome.contactRecord.id, typeId: outcome.typeId };
		if (orderId !== undefined) queued.orderId = orderId;
		if (Array.isArray(raw.attachments)) {
			queued.attachments = (raw.attachments as Array<Record<string, string>>).map((attachment) => ({
				filename: attachment.filename,
				mimetype: attachment.mimetype,
				data: Buffer.from(attachment.data, 'base64'),
			}));
		}
		if (this.keepTransactions) queued.transaction = raw;
		return queued;
	}
}
