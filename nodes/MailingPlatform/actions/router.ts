import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as contactField from './contactField/ContactField.resource';
import * as mailing from './mailing/Mailing.resource';
import * as transaction from './transaction/Transaction.resource';
import * as report from './report/Report.resource';

type Operation = {
	execute(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]>;
};

const operationsByResource: Record<string, Record<string, Operation>> = {
	transaction: { create: transaction.create },
	contactField: { rename: contactField.rename },
	mailing: { getTestSendOutResult: mailing.getTestSendOutResult, schedule: mailing.schedule, startBounceCheck: mailing.startBounceCheck, startMessageSizeCheck: mailing.startMessageSizeCheck },
	report: { getBlocks: report.getBlocks, countBlocks: report.countBlocks, getUnsubscriptionReasons: report.getUnsubscriptionReasons },
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const selected = operationsByResource[resource]?.[operation];
	if (selected === undefined) {
		throw new NodeOperationError(
			this.getNode(),
			`The operation "${operation}" of resource "${resource}" is not supported`,
			{ description: 'Choose a resource and operation offered in the node.' },
		);
	}
	return [await selected.execute.call(this, this.getInputData())];
}
