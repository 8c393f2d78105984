/**
 * The one way an operation refuses bad input: throw an `InputProblem` naming the field and
 * saying how to fix it, before anything is sent. `runPerItem` turns it into a
 * `NodeOperationError` of the item (or an error item with continue-on-fail).
 */
export class InputProblem extends Error {
	constructor(
		message: string,
		readonly hint: string,
	) {
		super(message);
	}
}

/** Whether a parameter or field was left empty: absent, null or only blanks. */
export function isEmpty(value: unknown): boolean {
	return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}
