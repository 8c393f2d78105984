/**
 * The spec's rules of POST mailings/:id/schedule, written once: the panel's options, ranges and
 * conditions and the checks before sending are both built from them.
 */

export interface Range {
	min: number;
	max: number;
}

/** The dispatch ends given as a number: their parameter, panel option, unit and panel default. */
export const NUMERIC_ENDS = {
	inDays: { parameter: 'dispatchEndInDays', name: 'After a Number of Days', unit: 'days', default: 7 },
	inHours: { parameter: 'dispatchEndInHours', name: 'After a Number of Hours', unit: 'hours', default: 24 },
} as const;
export type NumericEnd = keyof typeof NUMERIC_ENDS;

/** Every dispatch option may end at an exact date-time instead. */
export const EXACT_END = { value: 'exactDatetime', name: 'At an Exact Date and Time' } as const;

interface DispatchRule {
	/** The panel's name of the option and how it sends (its description, before the end's range). */
	name: string;
	sends: string;
	/** Response-based options send in waves (grouped, counting clicks or not); the others at an interval. */
	waves: boolean;
	/** Its numeric end and that end's range. */
	end: NumericEnd;
	range: Range;
}

/** The dispatch options in the spec's order, which messages keep. */
export const DISPATCH_RULES = {
	hour: {
		name: 'By Hour (Response-Based)',
		sends: 'Send in waves at the hours recipients responded best',
		waves: true,
		end: 'inHours',
		range: { min: 2, max: 24 },
	},
	weekdayhour: {
		name: 'By Weekday and Hour (Response-Based)',
		sends: 'Send in waves at the weekdays and hours recipients responded best',
		waves: true,
		end: 'inDays',
		range: { min: 1, max: 7 },
	},
	uniform: {
		name: 'Uniform',
		sends: 'Spread the sending evenly',
		waves: false,
		end: 'inHours',
		range: { min: 2, max: 96 },
	},
} as const satisfies Record<string, DispatchRule>;

export type DispatchOption = keyof typeof DISPATCH_RULES;
export const DISPATCH_OPTIONS = Object.keys(DISPATCH_RULES) as DispatchOption[];

/** The node's choice of no dispatch option (not an API value): nothing about dispatch is sent. */
export const NO_DISPATCH = 'none';

/** The options that satisfy `test`, in the spec's order. */
export function optionsWhere(test: (rule: DispatchRule) => boolean): DispatchOption[] {
	return DISPATCH_OPTIONS.filter((option) => test(DISPATCH_RULES[option]));
}

/** dispatchWavesGroup of the response-based options, and the service's default when it is not sent. */
export const WAVES_GROUP: Range = { min: 1, max: 3 };
export const DEFAULT_WAVES_GROUP = 3;

/** dispatchUniformInterval's values in the spec's order, with their panel names. */
export const UNIFORM_INTERVALS = {
	hour: 'Every Hour',
	'30m': 'Every 30 Minutes',
	'20m': 'Every 20 Minutes',
	'15m': 'Every 15 Minutes',
	'10m': 'Every 10 Minutes',
} as const;
