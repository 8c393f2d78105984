import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';

/**
 * Canvas subtitles that show what the user picked in the panel ("Get Blocks"), not internal
 * values. n8n's own fallback finds only the first `operation` property, which belongs to one
 * resource, so each node gives an expression that maps the stored values to labels; a value
 * it does not know (e.g. an expression) is shown as it is.
 */
function lookupExpression(key: string, labels: Array<[value: string, label: string]>, suffix?: string): string {
	const chain = labels.map(([value, label]) => `${key} === ${JSON.stringify(value)} ? ${JSON.stringify(label)} : `).join('');
	return suffix === undefined ? `={{ ${chain}${key} }}` : `={{ (${chain}${key}) + ${suffix} }}`;
}

/** Transaction › Create with Dry Run on says so on the canvas, so that nobody leaves it on by accident. */
const DRY_RUN_MARK = '($parameter["options"] && $parameter["options"]["dryRun"] === true ? " (Dry Run)" : "")';

function optionsOf(property: INodeProperties): INodePropertyOptions[] {
	return (property.options ?? []).filter((option): option is INodePropertyOptions => 'value' in option);
}

/** The label of one option of an `options` parameter, e.g. the trigger's event. */
export function optionSubtitle(property: INodeProperties): string {
	const key = `$parameter[${JSON.stringify(property.name)}]`;
	return lookupExpression(
		key,
		optionsOf(property).map((option) => [String(option.value), option.name]),
	);
}

/**
 * The chosen operation's name, e.g. "Get Blocks"; a one-word name gets its resource's name,
 * e.g. "Create Transaction", so it says what it acts on; "(Dry Run)" follows while that option is on.
 */
export function operationSubtitle(resource: INodeProperties, properties: INodeProperties[]): string {
	const labels: Array<[string, string]> = [];
	for (const resourceOption of optionsOf(resource)) {
		const operation = properties.find(
			(property) =>
				property.name === 'operation' && property.displayOptions?.show?.resource?.includes(resourceOption.value) === true,
		);
		for (const option of operation === undefined ? [] : optionsOf(operation)) {
			const label = option.name.includes(' ') ? option.name : `${option.name} ${resourceOption.name}`;
			labels.push([`${resourceOption.value}.${option.value}`, label]);
		}
	}
	return lookupExpression('($parameter["resource"] + "." + $parameter["operation"])', labels, DRY_RUN_MARK);
}
