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
