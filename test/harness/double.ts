import { ServiceDouble } from '../double/server';
import type { CredentialValues } from './workflow';

/** Starts a fresh double for a test file and stops it afterwards. */
export function useServiceDouble(): {
	double: () => ServiceDouble;
	credentials: (overrides?: Partial<CredentialValues>) => CredentialValues;
} {
	let current: ServiceDouble | undefined;
	beforeEach(async () => {
		current = await ServiceDouble.start();
	});
	afterEach(async () => {
		await current?.close();
	});
	const double = () => {
		if (current === undefined) throw new Error('the double is started in beforeEach');
		return current;
	};
	return {
		double,
		credentials: (overrides = {}) => ({ baseUrl: double().baseUrl, apiKey: double().apiKey, ...overrides }),
	};
}
