import './env';

/** One benchmark's findings: a titled table of measured values and goals. */
export interface BenchTable {
	title: string;
	rows: Array<{ measure: string; value: string; goal?: string }>;
}

type Benchmark = () => Promise<BenchTable>;

const benchmarks: Array<[string, () => Promise<Benchmark>]> = [
	['transactions', async () => (await import('./transactions')).default],
	['reports', async () => (await import('./reports')).default],
];

function print(table: BenchTable): void {
	const widths = [
		Math.max(7, ...table.rows.map((row) => row.measure.length)),
		Math.max(5, ...table.rows.map((row) => row.value.length)),
	];
	console.log(`\n## ${table.title}\n`);
	console.log(`| ${'measure'.padEnd(widths[0])} | ${'value'.padEnd(widths[1])} | goal |`);
	console.log(`|${'-'.repeat(widths[0] + 2)}|${'-'.repeat(widths[1] + 2)}|------|`);
	for (const row of table.rows) {
		console.log(`| ${row.measure.padEnd(widths[0])} | ${row.value.padEnd(widths[1])} | ${row.goal ?? ''} |`);
	}
}

async function main(): Promise<void> {
	const only = process.argv[2];
	for (const [name, load] of benchmarks) {
		if (only !== undefined && name !== only) continue;
		const benchmark = await load();
		print(await benchmark());
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
