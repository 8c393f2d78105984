import './env';

/** What one scenario measured: named numbers, turned into table rows by the parent. */
export type Measurements = Record<string, number>;

const scenarios: Record<string, () => Promise<() => Promise<Measurements>>> = {
	transactions: async () => (await import('./transactions')).transactions,
	transactionsPerItem: async () => (await import('./transactions')).transactionsPerItem,
	reports: async () => (await import('./reports')).reports,
	pagedReadConcurrent: async () => (await import('./reports')).pagedReadConcurrent,
	pagedReadSequential: async () => (await import('./reports')).pagedReadSequential,
	deduplication: async () => (await import('./deduplication')).deduplication,
};

/** Runs one scenario in this (fresh) process and sends its measurements to the parent. */
async function main(name: string): Promise<void> {
	const load = scenarios[name];
	if (load === undefined) throw new Error(`no scenario ${name}`);
	const measurements = await (await load())();
	if (process.send === undefined) console.log(JSON.stringify(measurements));
	else await new Promise((resolve) => process.send?.(measurements, resolve));
}

if (require.main === module) {
	main(process.argv[2]).then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
