/** A count or size as messages write it: `9,000,000`. */
export function thousands(value: number): string {
	return value.toLocaleString('en-US');
}

/** A count with its noun: `1 item`, `2 items`. */
export function counted(value: number, singular: string, plural: string): string {
	return `${thousands(value)} ${value === 1 ? singular : plural}`;
}
