/** A comma-separated parameter as a list: `a, b,,c ` -> `['a', 'b', 'c']`. */
export function splitList(value: unknown): string[] {
	if (Array.isArray(value)) return value.map((entry) => String(entry).trim()).filter((entry) => entry !== '');
	if (value === undefined || value === null) return [];
	return String(value)
		.split(',')
		.map((entry) => entry.trim())
		.filter((entry) => entry !== '');
}
