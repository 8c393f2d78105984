/** Unit tests and in-process workflow runs against the local double of the service. */
module.exports = {
	testEnvironment: 'node',
	// tsconfig.json describes the shipped package only; tests compile with the development one.
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.dev.json' }] },
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '/test/e2e/'],
	setupFiles: ['<rootDir>/test/harness/setupEnv.ts'],
	setupFilesAfterEnv: ['<rootDir>/test/harness/freshProcessedData.ts'],
	// n8n-core starts timers it never clears; without this jest waits for them forever.
	forceExit: true,
	testTimeout: 60_000,
	// The workflow tests spend most of their time waiting (a key's confirmation rounds go on some seconds
	// after its execution), so four files run at once even on two processors: 6 minutes become 2.
	maxWorkers: 4,
};
