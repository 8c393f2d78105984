import type { IExecuteFunctions, INodeExecutionData, INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../credentials/MailingPlatformApi.credentials';
import { contactField } from './actions/contactField/ContactField.resource';
import { mailing } from './actions/mailing/Mailing.resource';
import type { Operation, Resource } from './actions/resource';
import { report } from './actions/report/Report.resource';
import { transaction } from './actions/transaction/Transaction.resource';
import { PACKAGE_DESCRIPTION } from './description';
import { outputOf } from './helpers/itemResults';
import { nodeOf } from './helpers/parameters';
import { afterTry, recallTries } from './helpers/retryMemory';
import { operationSubtitle } from './helpers/subtitle';
import { getGenericOrderFields } from './methods/resourceMapping';

/** Every resource, in the order their fields come in the panel. */
const RESOURCES: readonly Resource[] = [transaction, contactField, mailing, report];

const resourceProperty: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: RESOURCES.map(({ name, value }) => ({ name, value })).sort((a, b) => a.name.localeCompare(b.name)),
	default: 'transaction',
};

const operations = RESOURCES.flatMap((resource) => resource.description);

function operationOf(resource: string, operation: string): Operation | undefined {
	const offered = RESOURCES.find((candidate) => candidate.value === resource)?.operations;
	return offered !== undefined && Object.hasOwn(offered, operation) ? offered[operation] : undefined;
}

export class MailingPlatform implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Mailing Platform',
		name: 'mailingPlatform',
		icon: { light: 'file:mailingPlatform.svg', dark: 'file:mailingPlatform.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: operationSubtitle(resourceProperty, operations),
		description: PACKAGE_DESCRIPTION.actions,
		defaults: { name: 'Mailing Platform' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: [resourceProperty, ...operations],
	};

	methods = { resourceMapping: { getGenericOrderFields } };

	/**
	 * Runs the chosen operation on all input items, reads once how failures are handled, turns the
	 * results into the output (or throws), and keeps what reached the service for n8n's next try.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const resource = this.getNodeParameter('resource', 0) as string;
		const operation = this.getNodeParameter('operation', 0) as string;
		const selected = operationOf(resource, operation);
		if (selected === undefined) {
			throw new NodeOperationError(this.getNode(), `The operation "${operation}" of resource "${resource}" is not supported`, {
				description: 'Choose a resource and operation offered in the node.',
			});
		}
		const node = nodeOf(this);
		// Only with Retry On Fail does n8n run the node again, so only then is there anything to keep between tries.
		const retrying = node.retryOnFail === true;
		if (retrying && selected.onRetry !== undefined) this.addExecutionHints({ message: selected.onRetry, location: 'outputPane' });
		const policy = { continueOnFail: this.continueOnFail(), errorOutput: node.onError === 'continueErrorOutput' };
		const { results, reached, failure } = await selected.execute.call(this, policy, retrying ? recallTries(this) : undefined);
		const output = outputOf(policy, results);
		// n8n runs the node again when it throws, or when its first item has `json.error`.
		if (retrying) afterTry(this, reached, failure !== undefined || 'failure' in output || output.items[0]?.json.error !== undefined);
		if (failure !== undefined) throw failure;
		if ('failure' in output) throw output.failure;
		return [output.items];
	}
}
