import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

import type { RequestBudget } from './budget';
import { FaultInjector, faultResponse } from './faults';
import type { DoubleRequest, DoubleResponse } from './http';
import { readBody, send, xmlError } from './http';
import { ContactFieldsArea } from './routes/contactFields';
import { MailingsArea } from './routes/mailings';
import { TransactionsArea } from './routes/transactions';
import { ReportsArea } from './routes/reports';

export const VERSION_PREFIX = '/1.0';
export const DEFAULT_API_KEY = 'sandbox-api-key';

export interface RecordedRequest {
	method: string;
	/** Path below the version prefix as it arrived, still encoded. */
	rawPath: string;
	segments: string[];
	/** Query pairs in order, repeated keys kept. */
	query: Array<[string, string]>;
	contentType?: string;
	accept?: string;
	bodyBytes: number;
	status: number;
	/** The Content-Type of the answer. */
	answerType?: string;
	/** When the whole body had arrived (`performance.now()`). */
	receivedAtMs: number;
	/** The client closed the connection before the answer was written (n8n killed, or the request aborted). */
	answerLost?: boolean;
	/** POST transactions that reached the route: the order id of each transaction it carried. */
	orders?: Array<string | undefined>;
}

export interface Area {
	handle(request: DoubleRequest): DoubleResponse | undefined | Promise<DoubleResponse | undefined>;
}

export interface ServiceDoubleOptions {
	apiKey?: string;
	/** Port to listen on; 0 (the default) lets the OS pick a free one. */
	port?: number;
	/** Stop by itself after this long, so no test can leave a server behind. */
	maxLifetimeMs?: number;
	/** The account's time zone (Europe/Berlin unless given); see `timeZone`. */
	timeZone?: string;
}

/**
 * A local stand-in for the service, implementing the API spec on 127.0.0.1, with fault
 * injection for tests. `npm start` runs it as the sandbox behind the n8n editor.
 */
export class ServiceDouble {
	readonly faults = new FaultInjector();

	readonly requests: RecordedRequest[] = [];

	/**
	 * The account's request budget (budget.ts), none unless set: every request beyond it, of
	 * any route, is answered 429 at once and does nothing. Set a new one to start full.
	 */
	budget: RequestBudget | undefined = undefined;

	readonly contactFields = new ContactFieldsArea();

	readonly mailings = new MailingsArea();

	readonly reports = new ReportsArea();

	readonly transactions = new TransactionsArea(this.faults);

	private readonly areas: Area[] = [this.contactFields, this.mailings, this.reports, this.transactions];

	private readonly sockets = new Set<Socket>();

	/**
	 * API keys of further accounts, served as the same service (one budget, one record of
	 * transactions): a node meets another account's sender there, with nothing it learned of the first.
	 */
	readonly otherApiKeys = new Set<string>();

	private constructor(
		private readonly server: Server,
		readonly apiKey: string,
		readonly baseUrl: string,
	) {}

	static async start(options: ServiceDoubleOptions = {}): Promise<ServiceDouble> {
		const server = createServer();
		await new Promise<void>((resolve, reject) => {
			server.once('error', reject);
			server.listen(options.port ?? 0, '127.0.0.1', resolve);
		});
		const { port } = server.address() as AddressInfo;
		const double = new ServiceDouble(server, options.apiKey ?? DEFAULT_API_KEY, `http://127.0.0.1:${port}${VERSION_PREFIX}`);
		if (options.timeZone !== undefined) double.timeZone = options.timeZone;
		server.on('request', (req, res) => void double.serve(req, res));
		server.on('connection', (socket) => {
			double.sockets.add(socket);
			socket.once('close', () => double.sockets.delete(socket));
		});
		const lifetime = setTimeout(() => void double.close(), options.maxLifetimeMs ?? 10 * 60_000);
		lifetime.unref();
		server.once('close', () => clearTimeout(lifetime));
		return double;
	}

	/**
	 * The platform account's time zone: block and contact times are written, and schedule
	 * times read, as wall-clock time of this zone, without a zone, as the service does.
	 */
	get timeZone(): string {
		return this.reports.timeZone;
	}

	set timeZone(zone: string) {
		this.reports.timeZone = zone;
		this.mailings.timeZone = zone;
	}

	/** Requests whose path (below the version prefix) starts with `prefix`. */
	requestsTo(prefix: string): RecordedRequest[] {
		return this.requests.filter((request) => request.rawPath.startsWith(prefix));
	}

	/** Refuses every connection from now on, as a service whose host is down: nothing listens on its port until `listenAgain`. */
	async stopListening(): Promise<void> {
		await this.close();
	}

	/** Listens again on the port it had. */
	async listenAgain(): Promise<void> {
		const { port } = new URL(this.baseUrl);
		await new Promise<void>((resolve, reject) => {
			this.server.once('error', reject);
			this.server.listen(Number(port), '127.0.0.1', () => {
				this.server.off('error', reject);
				resolve();
			});
		});
	}

	async close(): Promise<void> {
		if (!this.server.listening) return;
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
		const url = new URL(req.url ?? '/', 'http://double.invalid');
		const rawPath = url.pathname.startsWith(`${VERSION_PREFIX}/`) ? url.pathname.slice(VERSION_PREFIX.length + 1) : url.pathname;
		const body = await readBody(req, this.faults.entityLimitBytes);
		const record: RecordedRequest = {
			method: req.method ?? 'GET',
			rawPath,
			segments: rawPath.split('/').map((segment) => decodeURIComponent(segment)),
			query: [...url.searchParams.entries()],
			contentType: req.headers['content-type'],
			accept: req.headers.accept,
			bodyBytes: Number(req.headers['content-length'] ?? (body === 'tooLarge' ? 0 : body.length)),
			status: 0,
			receivedAtMs: performance.now(),
		};
		this.requests.push(record);
		res.once('close', () => {
			if (!res.writableFinished) record.answerLost = true;
		});

		const overBudget = this.budget?.take();
		if (overBudget !== undefined) {
			const refusal = this.faults.errorForm(overBudget);
			record.status = refusal.status;
			record.answerType = refusal.headers?.['Content-Type'];
			send(res, refusal);
			return;
		}

		const fault = this.faults.take(rawPath);
		const delayMs = this.faults.delayMs + (record.bodyBytes / 1_000_000) * this.faults.msPerMegabyte;
		if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
		await this.faults.answersHeld;
		if (fault?.kind === 'drop') {
			if (fault.afterProcessing === true) await this.answer(req, url, rawPath, record, body);
			record.status = -1;
			req.socket.destroy();
			return;
		}

		const answer = fault !== undefined ? faultResponse(fault) : await this.answer(req, url, rawPath, record, body);
		const response = this.faults.errorForm(answer);
		record.status = response.status;
		record.answerType = response.headers?.['Content-Type'];
		send(res, response);
	}

	private async answer(
		req: IncomingMessage,
		url: URL,
		rawPath: string,
		record: RecordedRequest,
		body: Buffer | 'tooLarge',
	): Promise<DoubleResponse> {
		const accepted = [this.apiKey, ...this.otherApiKeys].map((key) => `Basic ${Buffer.from(key, 'utf8').toString('base64')}`);
		if (!accepted.includes(req.headers.authorization ?? '')) return xmlError(401, 'Authentication failed.');
		if (!url.pathname.startsWith(`${VERSION_PREFIX}/`)) return xmlError(404, 'Not found.');
		if (body === 'tooLarge') {
			return xmlError(413, `Request entity larger than ${this.faults.entityLimitBytes} bytes.`);
		}
		const request: DoubleRequest = {
			method: record.method,
			segments: record.segments,
			query: url.searchParams,
			headers: req.headers,
			body,
		};
		for (const area of this.areas) {
			const response = await area.handle(request);
			record.orders = request.orders;
			if (response !== undefined) return response;
		}
		return xmlError(404, `No such resource: ${rawPath}`);
	}
}
