import type { IExecuteFunctions, INodeExecutionData, INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../credentials/MailingPlatformApi.credentials';
import * as contactField from './actions/contactField/ContactField.resource';
import * as mailing from './actions/mailing/Mailing.resource';
import * as transaction from './actions/transaction/Transaction.resource';
import { getGenericOrderFields } from './actions/transaction/genericOrder';
import * as report from './actions/report/Report.resource';
import { router } from './actions/router';
import { PACKAGE_DESCRIPTION } from './description';
import { operationSubtitle } from './helpers/subtitle';

const resource: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: [
		{ name: 'Contact Field', value: 'contactField' },
		{ name: 'Mailing', value: 'mailing' },
		{ name: 'Report', value: 'report' },
		{ name: 'Transaction', value: 'transaction' },
	],
	default: 'transaction',
};

const operations: INodeProperties[] = [
	...transaction.description,
	...contactField.description,
	...mailing.description,
	...report.description,
];

export class MailingPlatform implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Mailing Platform',
		name: 'mailingPlatform',
		icon: { light: 'file:mailingPlatform.svg', dark: 'file:mailingPlatform.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: operationSubtitle(resource, operations),
		description: PACKAGE_DESCRIPTION.actions,
		defaults: { name: 'Mailing Platform' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: CREDENTIAL_TYPE, required: true }],
		properties: [resource, ...operations],
	};

	methods = { resourceMapping: { getGenericOrderFields } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
