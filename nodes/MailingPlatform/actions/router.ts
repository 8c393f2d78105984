import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { contactField } from './contactField/ContactField.resource';
import { mailing } from './mailing/Mailing.resource';
import { forgetTriesAfter } from '../helpers/retries';
import type { Operation, Resource } from './resource';
import { report } from './report/Report.resource';
import { transaction } from './transaction/Transaction.resource';

/** Every resource, in the order their fields come in the panel. */
export const RESOURCES: readonly Resource[] = [transaction, contactField, mailing, report];

export const resourceProperty: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: RESOURCES.map(({ name, value }) => ({ name, value })).sort((a, b) => a.name.localeCompare(b.name)),
	default: 'transaction',
};

function operationOf(resource: string, operation: string): Operation | undefined {
	const operations = RESOURCES.find((candidate) => candidate.value === resource)?.operations;
	return operations !== undefined && Object.hasOwn(operations, operation) ? operations[operation] : undefined;
}

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const selected = operationOf(resource, operation);
	if (selected === undefined) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of resource "${resource}" is not supported`, {
			description: 'Choose a resource and operation offered in the node.',
		});
	}
	const policy = { continueOnFail: this.continueOnFail(), errorOutput: this.getNode().onError === 'continueErrorOutput' };
	const output = await selected.execute.call(this, policy);
	forgetTriesAfter(this, output);
	return [output];
}
