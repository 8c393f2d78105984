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
		data: { baseUrl: double.baseUrl, apiKey: double.apiKey },
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
];

/** Starts the double on 127.0.0.1 (OS-picked port) with demo data. */
export async function startSandbox(lifetimeMs: number): Promise<{ double: ServiceDouble; seeded: string[] }> {
	const double = await ServiceDouble.start({ maxLifetimeMs: lifetimeMs });
	for (const [, seed] of seeders) seed(double);
	return { double, seeded: seeders.map(([area]) => area) };
}
