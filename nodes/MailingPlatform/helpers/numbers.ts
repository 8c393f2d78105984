/** A count or size as messages write it: `9,000,000`. */
export function thousands(value: number): string {
	return value.toLocaleString('en-US');
}
