import { ServiceDouble } from '../test/double/server';
import type { CredentialToImport } from './n8n';

/** The id every example workflow refers to, so imported examples find their credential. */
export const SANDBOX_CREDENTIAL_ID = 'mpSandboxCred001';
export const SANDBOX_CREDENTIAL_NAME = 'Mailing Platform Sandbox';

export function sandboxCredential(double: ServiceDouble): CredentialToImport {
	return {
		id: SANDBOX_CREDENTIAL_ID,
		name: SANDBOX_CREDENTIAL_NAME,
		type: 'mailingPlatformApi',
		// The sandbox account runs in Europe/Berlin; the credential says so, as a user's would.
		data: { baseUrl: double.baseUrl, apiKey: double.apiKey, platformTimeZone: double.timeZone },
	};
}

/**
 * Demo data for the sandbox, one entry per area of the double: what a user can rename, report
 * on or schedule right after `npm start`. Add a line when an area gains a way to hold data.
 */
const seeders: Array<[area: string, seed: (double: ServiceDouble) => void]> = [
	[
		'custom contact fields',
		(double) => {
			for (const name of ['newsletter topic', 'preferred store', 'birthday month']) double.contactFields.customFields.add(name);
		},
	],
	[
		'transaction type "order_confirmation" used by the shop order example',
		(double) => {
			double.transactions.types.set(10, 'order_confirmation');
		},
	],
	[
		'block-status changes of the last 48 hours, one every 10 minutes',
		(double) => {
			const hour = 3_600_000;
			double.reports.generateBlocks(288, { start: new Date(Date.now() - 48 * hour), stepMs: hour / 6 });
		},
	],
	[
		'unsubscription reasons',
		(double) => {
			const yesterday = new Date(Date.now() - 24 * 3_600_000);
			double.reports.addUnsubscriptions('no_demand', 42, yesterday);
			double.reports.addUnsubscriptions('too_many_mails', 17, yesterday);
			double.reports.addUnsubscriptions('other|moved to a competitor & left', 3, yesterday);
		},
	],
];

/** Starts the double on 127.0.0.1 (OS-picked port) with demo data. */
export async function startSandbox(lifetimeMs: number): Promise<{ double: ServiceDouble; seeded: string[] }> {
	const double = await ServiceDouble.start({ maxLifetimeMs: lifetimeMs, timeZone: 'Europe/Berlin' });
	for (const [, seed] of seeders) seed(double);
	return { double, seeded: seeders.map(([area]) => area) };
}
