import type { INode, INodeType, IRunExecutionData, IWorkflowBase } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { ExecuteContext, RoutingNode } from 'n8n-core';

import { MailingPlatformApi } from '../../credentials/MailingPlatformApi.credentials';
import type { CredentialValues } from './workflow';
import { additionalDataFor, nodeTypes, registerNodeType } from './workflow';

/** What the credential dialog shows after "Test". */
export interface CredentialVerdict {
	status: 'OK' | 'Error';
	message: string;
}

const credential = new MailingPlatformApi();

/** The temporary node n8n's credential tester builds: one property routed as the credential's test request. */
const TESTER_NODE_TYPE = 'harness.credentialTest';
const testerNode: INodeType = {
	description: {
		displayName: 'Credential Test',
		name: TESTER_NODE_TYPE,
		group: ['transform'],
		version: 1,
		description: 'The request of a credential test',
		defaults: {},
		inputs: [],
		outputs: [],
		credentials: [{ name: credential.name, required: true }],
		properties: [{ displayName: 'Temp', name: 'temp', type: 'string', default: '', routing: { request: credential.test.request } }],
	},
};
registerNodeType(TESTER_NODE_TYPE, testerNode);

interface TestRequestError {
	message: string;
	cause?: { response?: { status: number; statusText?: string }; code?: string };
}

/**
 * n8n's verdict on a failed test request, as its credential tester (in n8n's CLI package, so a
 * model here) gives it: the credential's rule for the HTTP status the error keeps, else the
 * status text, else the error's code, else its message.
 */
function verdictOf(error: TestRequestError): CredentialVerdict {
	const response = error.cause?.response;
	if (response !== undefined) {
		const rule = (credential.test.rules ?? []).find((candidate) => candidate.type === 'responseCode' && candidate.properties.value === response.status);
		if (rule !== undefined) return { status: 'Error', message: rule.properties.message };
		return { status: 'Error', message: response.statusText || `Received HTTP status code: ${response.status}` };
	}
	return { status: 'Error', message: error.cause?.code ?? error.message };
}

/**
 * The credential test of the dialog: its request made by n8n-core's own RoutingNode, as n8n's
 * credential tester makes it, with the credential's real `authenticate`.
 */
export async function testCredential(values: CredentialValues): Promise<CredentialVerdict> {
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: TESTER_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: { [credential.name]: { id: 'credential', name: 'Mailing Platform account' } },
	};
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	const workflowData = { nodes: [node], connections: {} } as unknown as IWorkflowBase;
	const runExecutionData = { resultData: { runData: {} } } as IRunExecutionData;
	const inputData = { main: [[{ json: {} }]] };
	const context = new ExecuteContext(workflow, node, additionalDataFor(values, workflowData), 'internal', runExecutionData, 0, [], inputData, { node, data: {}, source: null }, []);
	const decrypted = { id: 'credential', name: 'Mailing Platform account', type: credential.name, data: { ...values } };
	try {
		await new RoutingNode(context, testerNode, decrypted).runNode();
	} catch (error) {
		return verdictOf(error as TestRequestError);
	}
	return { status: 'OK', message: 'Connection successful!' };
}
