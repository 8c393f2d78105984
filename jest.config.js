/** Unit tests and in-process workflow runs against the local double of the service. */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/'],
	setupFiles: ['<rootDir>/test/harness/setupEnv.ts'],
	// n8n-core starts timers it never clears; without this jest waits for them forever.
	forceExit: true,
	testTimeout: 60_000,
};
