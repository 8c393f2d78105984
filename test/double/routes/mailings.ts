import { DateTime } from 'luxon';

import type { DoubleRequest, DoubleResponse } from '../http';
import { xmlError, xmlResponse } from '../http';
import type { XmlElement } from '../xml';
import { xmlDocument } from '../xml';

export type CheckKind = 'messagesize' | 'bounce';
const CHECK_KINDS: readonly string[] = ['messagesize', 'bounce'];

export interface MailingSchedule {
	/** The instant the schedule denotes, in UTC. */
	at: string;
	date: string;
	hours: string;
	minutes: string;
	activate: boolean;
	/** Dispatch parameters as received. */
	dispatch: Record<string, string>;
}

export interface MailingState {
	type: 'REGULAR' | 'TRIGGER';
	sealed: boolean;
	enabledChecks: Set<CheckKind>;
	/** When each running check finishes, in milliseconds since the epoch. */
	runningUntil: Partial<Record<CheckKind, number>>;
	/** Children of `sendoutcheck`; undefined while no result exists. */
	testSendOut?: XmlElement;
	active: boolean;
	schedule?: MailingSchedule;
}

/** Seeded mailings, one per state a test needs. */
export const MAILINGS = {
	regular: 1001,
	sealed: 1002,
	checksNotEnabled: 1003,
	withoutResult: 1004,
	trigger: 1005,
} as const;

const SCHEDULE_PARAMETERS = new Set([
	'date',
	'hours',
	'minutes',
	'dispatchOption',
	'dispatchEndInHours',
	'dispatchEndInDays',
	'dispatchEndExactDatetime',
	'clicksAsResponseReference',
	'dispatchWavesGroup',
	'dispatchUniformInterval',
	'allowedHours',
	'activate',
]);

const IN_HOURS_RANGE: Readonly<Record<string, [number, number]>> = { uniform: [2, 96], hour: [2, 24] };

function seed(overrides: Partial<MailingState> = {}): MailingState {
	return {
		type: 'REGULAR',
		sealed: false,
		enabledChecks: new Set<CheckKind>(['messagesize', 'bounce']),
		runningUntil: {},
		active: false,
		...overrides,
	};
}

function integerIn(text: string | null, min: number, max: number): boolean {
	return text !== null && /^\d+$/.test(text) && Number(text) >= min && Number(text) <= max;
}

/**
 * POST mailings/:id/checks/messagesize|bounce, GET mailings/:id/checks/testsendout and
 * POST mailings/:id/schedule, with the statuses and messages of the spec.
 */
export class MailingsArea {
	/** How long a started check runs; tests may shorten it or call `finishChecks`. */
	checkDurationMs = 60_000;

	/** The account's timezone: date, hours and minutes of a schedule are wall-clock time in it. */
	timeZone = 'Europe/Berlin';

	/** Whether a schedule is answered with a small XML body instead of an empty one. */
	scheduleAnswersWithXml = false;

	readonly mailings = new Map<number, MailingState>([
		[
			MAILINGS.regular,
			seed({
				testSendOut: {
					mailingid: MAILINGS.regular,
					timestamp: '2026-11-20T09:15:42.123+01:00',
					state: 'success',
					recipients: 'qa@example.com',
				},
			}),
		],
		[MAILINGS.sealed, seed({ sealed: true })],
		[MAILINGS.checksNotEnabled, seed({ enabledChecks: new Set() })],
		[MAILINGS.withoutResult, seed()],
		[MAILINGS.trigger, seed({ type: 'TRIGGER' })],
	]);

	finishChecks(): void {
		for (const mailing of this.mailings.values()) mailing.runningUntil = {};
	}

	handle(request: DoubleRequest): DoubleResponse | undefined {
		const [mailings, rawId, ...rest] = request.segments;
		if (mailings !== 'mailings') return undefined;
		const route = rest.join('/');
		const known = ['checks/messagesize', 'checks/bounce', 'checks/testsendout', 'schedule'];
		if (rawId === undefined || !known.includes(route)) return xmlError(404, 'Not found.');
		if (request.method !== (route === 'checks/testsendout' ? 'GET' : 'POST')) {
			return xmlError(405, 'Method not allowed.');
		}
		const id = /^\d+$/.test(rawId) ? Number(rawId) : undefined;
		const mailing = id === undefined ? undefined : this.mailings.get(id);
		if (id === undefined || mailing === undefined) return xmlError(404, `Mailing with id ${rawId} not found.`);

		if (route === 'schedule') return this.schedule(id, mailing, request);
		if (route === 'checks/testsendout') return this.testSendOut(id, mailing);
		return this.startCheck(id, mailing, rest[1] as CheckKind);
	}

	private startCheck(id: number, mailing: MailingState, kind: CheckKind): DoubleResponse {
		if (!CHECK_KINDS.includes(kind)) return xmlError(404, 'Not found.');
		if (mailing.sealed) return xmlError(409, `Mailing with ID ${id} cannot be changed as it is sealed.`);
		if (!mailing.enabledChecks.has(kind)) return xmlError(412, `The ${kind} check is not enabled.`);
		const runningUntil = mailing.runningUntil[kind];
		if (runningUntil !== undefined && runningUntil > Date.now()) return xmlError(400, 'check in progress');
		mailing.runningUntil[kind] = Date.now() + this.checkDurationMs;
		return { status: 200 };
	}

	private testSendOut(id: number, mailing: MailingState): DoubleResponse {
		if (mailing.sealed) return xmlError(409, `Mailing with ID ${id} is sealed.`);
		if (mailing.testSendOut === undefined) {
			return xmlError(404, `Results not available for mailing with id ${id}.`);
		}
		return xmlResponse(200, xmlDocument({ sendoutcheck: mailing.testSendOut }));
	}

	private schedule(id: number, mailing: MailingState, request: DoubleRequest): DoubleResponse {
		if (mailing.sealed) return xmlError(405, `Mailing with ID ${id} cannot be changed as it is sealed.`);
		if (mailing.type !== 'REGULAR') return xmlError(400, `Mailing with ID ${id} is not of type REGULAR.`);
		if (request.body.length > 0) return xmlError(400, 'All parameters are query parameters; no body is expected.');
		const query = request.query;
		for (const name of new Set(query.keys())) {
			if (!SCHEDULE_PARAMETERS.has(name)) return xmlError(400, `Unknown parameter ${name}.`);
			if (query.getAll(name).length > 1) return xmlError(400, `Parameter ${name} is given more than once.`);
		}

		const date = query.get('date');
		const hours = query.get('hours');
		const minutes = query.get('minutes');
		const wallClock = `${date} ${hours}:${minutes}`;
		const start = DateTime.fromFormat(wallClock, 'yyyy-MM-dd HH:mm', { zone: this.timeZone });
		if (!/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/.test(wallClock) || !start.isValid) {
			return xmlError(400, 'Invalid request: planned date is not a date.');
		}
		if (start < DateTime.now().startOf('minute')) return xmlError(400, 'Invalid request: planned date is in the past.');

		const dispatchProblem = this.dispatchProblem(query, start);
		if (dispatchProblem !== undefined) return xmlError(400, dispatchProblem);
		const activate = query.get('activate') ?? 'true';
		if (activate !== 'true' && activate !== 'false') return xmlError(400, 'activate must be true or false.');

		const dispatch: Record<string, string> = {};
		for (const [name, value] of query) {
			if (!['date', 'hours', 'minutes', 'activate'].includes(name)) dispatch[name] = value;
		}
		mailing.schedule = {
			at: start.toUTC().toISO() ?? '',
			date: date ?? '',
			hours: hours ?? '',
			minutes: minutes ?? '',
			activate: activate === 'true',
			dispatch,
		};
		mailing.active = activate === 'true';
		return this.scheduleAnswersWithXml
			? xmlResponse(200, xmlDocument({ message: `Schedule set for mailing with ID ${id}.` }))
			: { status: 200 };
	}

	private dispatchProblem(query: URLSearchParams, start: DateTime): string | undefined {
		const option = query.get('dispatchOption');
		const allowedHours = query.get('allowedHours');
		if (allowedHours !== null) {
			const parts = allowedHours.split(',').map((part) => /^(\d{1,2})(?:-(\d{1,2}))?$/.exec(part));
			const valid = parts.every(
				(match) =>
					match !== null &&
					Number(match[1]) <= 23 &&
					(match[2] === undefined || (Number(match[2]) <= 23 && Number(match[2]) >= Number(match[1]))),
			);
			if (!valid) return `allowedHours must be hours and ranges within 0..23, such as 0,3,5,17-21.`;
		}
		const dispatchNames = [...query.keys()].filter((name) => name.startsWith('dispatch') || name === 'clicksAsResponseReference');
		if (option === null) {
			return dispatchNames.length > 0 ? 'Dispatch parameters need a dispatchOption.' : undefined;
		}
		if (!['hour', 'weekdayhour', 'uniform'].includes(option)) return `Unknown dispatchOption ${option}.`;

		const ends = ['dispatchEndInHours', 'dispatchEndInDays', 'dispatchEndExactDatetime'].filter((name) => query.has(name));
		if (ends.length !== 1) return 'Exactly one of dispatchEndInHours, dispatchEndInDays, dispatchEndExactDatetime is required.';
		const inHours = query.get('dispatchEndInHours');
		if (inHours !== null) {
			const range = IN_HOURS_RANGE[option];
			if (range === undefined || !integerIn(inHours, ...range)) return `dispatchEndInHours ${inHours} is not valid for ${option}.`;
		}
		const inDays = query.get('dispatchEndInDays');
		if (inDays !== null && (option !== 'weekdayhour' || !integerIn(inDays, 1, 7))) {
			return `dispatchEndInDays ${inDays} is not valid for ${option}.`;
		}
		const exact = query.get('dispatchEndExactDatetime');
		if (exact !== null) {
			const end = DateTime.fromFormat(exact, 'yyyy-MM-dd HH:mm', { zone: this.timeZone });
			if (!end.isValid || end <= start) return 'dispatchEndExactDatetime must be a date-time after the start.';
		}

		const responseBased = option === 'hour' || option === 'weekdayhour';
		const clicks = query.get('clicksAsResponseReference');
		if (clicks !== null && (!responseBased || !['true', 'false'].includes(clicks))) {
			return `clicksAsResponseReference is not valid for ${option}.`;
		}
		const waves = query.get('dispatchWavesGroup');
		if (waves !== null && (!responseBased || !integerIn(waves, 1, 3))) return `dispatchWavesGroup is not valid for ${option}.`;
		const interval = query.get('dispatchUniformInterval');
		if (interval !== null && (option !== 'uniform' || !['hour', '30m', '20m', '15m', '10m'].includes(interval))) {
			return `dispatchUniformInterval must be null for ${option}.`;
		}
		return undefined;
	}
}
