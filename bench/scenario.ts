import './env';

/** What one scenario measured: named numbers, turned into table rows by the parent. */
export type Measurements = Record<string, number>;

/** A scenario's settings, given by the parent as `--name value` arguments. */
export type Settings = Record<string, number>;

const scenarios: Record<string, () => Promise<(settings: Settings) => Promise<Measurements>>> = {
	transactions: async () => (await import('./transactions')).transactions,
	transactionsPerItem: async () => (await import('./transactions')).transactionsPerItem,
	reports: async () => (await import('./reports')).reports,
	pagedRead: async () => (await import('./reports')).pagedRead,
	deduplication: async () => (await import('./deduplication')).deduplication,
	commonFlow: async () => (await import('./commonFlow')).commonFlow,
	rush: async () => (await import('./rush')).rushOfOrders,
};

function readSettings(args: string[]): Settings {
	const settings: Settings = {};
	for (let index = 0; index < args.length; index += 2) {
		const value = Number(args[index + 1]);
		if (!args[index].startsWith('--') || !Number.isFinite(value)) throw new Error(`settings are --name number pairs, not ${args.join(' ')}`);
		settings[args[index].slice(2)] = value;
	}
	return settings;
}

/** Runs one scenario in this (fresh) process and sends its measurements to the parent. */
async function main(name: string, args: string[]): Promise<void> {
	const load = scenarios[name];
	if (load === undefined) throw new Error(`no scenario ${name}`);
	const measurements = await (await load())(readSettings(args));
	if (process.send === undefined) console.log(JSON.stringify(measurements));
	else await new Promise((resolve) => process.send?.(measurements, resolve));
}

if (require.main === module) {
	main(process.argv[2], process.argv.slice(3)).then(
		() => process.exit(0),
		(error: unknown) => {
			console.error(error);
			process.exit(1);
		},
	);
}
