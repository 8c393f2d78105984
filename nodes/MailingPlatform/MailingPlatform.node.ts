import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import * as contactField from './actions/contactField/ContactField.resource';
import * as mailing from './actions/mailing/Mailing.resource';
import * as transaction from './actions/transaction/Transaction.resource';
import { getGenericOrderFields } from './actions/transaction/genericOrder';
import * as report from './actions/report/Report.resource';
import { router } from './actions/router';

export class MailingPlatform implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Mailing Platform',
		name: 'mailingPlatform',
		icon: { light: 'file:mailingPlatform.svg', dark: 'file:mailingPlatform.dark.svg' },
		group: ['output'],
		version: 1,
		subtitle: '={{ $parameter["operation"] + ": " + $parameter["resource"] }}',
		description:
			'Send transaction e-mails, check and schedule mailings, and read block and unsubscription reports',
		defaults: { name: 'Mailing Platform' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'mailingPlatformApi', required: true }],
		properties: [
			{
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
			},
			...transaction.description,
			...contactField.description,
			...mailing.description,
			...report.description,
		],
	};

	methods = { resourceMapping: { getGenericOrderFields } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
