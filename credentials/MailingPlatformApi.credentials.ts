import { IANAZone } from 'luxon';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
} from 'n8n-workflow';

/** The credential type's name: the nodes ask for it, saved workflows store it. */
export const CREDENTIAL_TYPE = 'mailingPlatformApi';

/** Accept of every XML call, the credential test's included: the service's own media type. */
export const XML_ACCEPT = 'application/vnd.service.api+xml; charset=utf-8';

/**
 * Zones found valid. Checking builds an `Intl.DateTimeFormat`, slow next to a request, and every
 * request checks the credential's zone; the IANA names are a bounded set, so this set stays small.
 */
const validZones = new Set<string>();

/** Whether `zone` names an IANA time zone (e.g. Europe/Berlin); empty is not one. */
export function isTimeZone(zone: string): boolean {
	const name = zone.trim();
	if (validZones.has(name)) return true;
	const valid = name !== '' && IANAZone.isValidZone(name);
	if (valid) validZones.add(name);
	return valid;
}

/** Plain HTTP would send the API key readable on the wire; only a local service may use it. */
export function isAllowedBaseUrl(baseUrl: string): boolean {
	let url: URL;
	try {
		url = new URL(baseUrl);
	} catch {
		return false;
	}
	if (url.protocol === 'https:') return true;
	if (url.protocol !== 'http:') return false;
	const host = url.hostname;
	return host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** The API's paths hang below its version, e.g. https://api.example.com/1.0; without it every call misses. */
function hasVersionPrefix(baseUrl: string): boolean {
	try {
		return /\/\d+(\.\d+)*\/?$/.test(new URL(baseUrl).pathname);
	} catch {
		return false;
	}
}

export class MailingPlatformApi implements ICredentialType {
	name = CREDENTIAL_TYPE;

	displayName = 'Mailing Platform API';

	icon = {
		light: 'file:mailingPlatform.svg',
		dark: 'file:mailingPlatform.dark.svg',
	} as const;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-mailing-platform#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com/1.0',
			description:
				'The API address with its version prefix, e.g. https://api.example.com/1.0; https:// unless the service runs on this machine (localhost).',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The private API key of the account, as shown in the platform\'s API settings',
		},
		{
			displayName: 'Platform Time Zone',
			name: 'platformTimeZone',
			type: 'string',
			default: '',
			placeholder: 'e.g. Europe/Berlin',
			hint: 'The account’s time zone is shown in the platform’s account settings',
			description:
				'The account’s IANA time zone, e.g. Europe/Berlin: the service’s times (blocks, contacts, schedules) are wall-clock times of it. Empty: the workflow’s timezone.',
		},
		{
			displayName: 'Max Requests per Second',
			name: 'maxRequestsPerSecond',
			type: 'number',
			default: 0,
			typeOptions: { minValue: 0 },
			hint: 'Optional. In queue mode each worker paces itself: a little under its share (e.g. 1.8 for a budget of 4 and two workers) spares the first refusal',
			description:
				'At most this many requests a second of this account from this n8n process, every operation and the trigger included (credentials of one account with different values: the smallest). The service’s refusals (429, 503) teach a slower pace where needed; 0 paces by them alone.',
		},
	];

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const baseUrl = String(credentials.baseUrl ?? '');
		if (!isAllowedBaseUrl(baseUrl)) {
			throw new Error(
				`The Base URL "${baseUrl}" is not allowed: use an https:// address (plain http:// only works for localhost)`,
			);
		}
		// Checked before sending: n8n (2.8.4) shows a failed credential test's own words only when
		// the error is not an HTTP answer; a 404 would read "The resource you are requesting could not be found".
		if (!hasVersionPrefix(baseUrl)) {
			throw new Error(`The Base URL must end with the version prefix, e.g. https://api.example.com/1.0 (it is ${baseUrl})`);
		}
		const timeZone = String(credentials.platformTimeZone ?? '').trim();
		if (timeZone !== '' && !isTimeZone(timeZone)) {
			throw new Error(
				`The Platform Time Zone "${timeZone}" is not a time zone: use an IANA name such as Europe/Berlin, or leave it empty`,
			);
		}
		const token = Buffer.from(String(credentials.apiKey ?? ''), 'utf8').toString('base64');
		return {
			...requestOptions,
			headers: { ...requestOptions.headers, Authorization: `Basic ${token}` },
		};
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ $credentials.baseUrl }}',
			url: 'reports/unsubscriptions/reasons',
			qs: { page_size: 1 },
			headers: { Accept: XML_ACCEPT },
		},
		// Shown instead of n8n's generic status text when the test request fails, where n8n keeps
		// the HTTP status for them: 2.8.4 loses it (the error's cause), which is why authenticate
		// also checks the Base URL before sending.
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message:
						'Nothing answers at this Base URL: the Base URL must end with the version prefix, e.g. https://api.example.com/1.0',
				},
			},
			...[401, 403].map((value) => ({
				type: 'responseCode' as const,
				properties: {
					value,
					message: "The API key was not accepted: copy the private API key again from the platform's API settings",
				},
			})),
		],
	};
}
