import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CREDENTIAL_TYPE } from '../../credentials/MailingPlatformApi.credentials';
import { RESOURCES, resourceProperty, router } from './actions/router';
import { PACKAGE_DESCRIPTION } from './description';
import { operationSubtitle } from './helpers/subtitle';
import { getGenericOrderFields } from './methods/resourceMapping';

const operations = RESOURCES.flatMap((resource) => resource.description);

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

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
