import type { IDataObject, INode, INodeParameters, IWorkflowBase, WorkflowExecuteMode } from 'n8n-workflow';
import { Workflow } from 'n8n-workflow';
import { PollContext } from 'n8n-core';

import type { CredentialValues } from './workflow';
import { additionalDataFor, nodeTypes, TRIGGER_NODE_TYPE } from './workflow';

export const TRIGGER_NAME = 'Mailing Platform Trigger';

export interface PollWorkflowOptions {
	parameters?: INodeParameters;
	timezone?: string;
	/** Static data saved by an earlier workflow, to simulate a restart (or another worker). */
	staticData?: IDataObject;
}

/** An active workflow holding only the trigger; its static data persists across `runPoll` calls. */
export function pollWorkflow(options: PollWorkflowOptions = {}): Workflow {
	const node: INode = {
		id: 'trigger',
		name: TRIGGER_NAME,
		type: TRIGGER_NODE_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { event: 'blockStatusChanged', ...options.parameters },
		credentials: { mailingPlatformApi: { id: 'credential', name: 'Mailing Platform account' } },
	};
	return new Workflow({
		id: 'poll-workflow',
		name: 'Poll workflow',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes,
		staticData: options.staticData === undefined ? undefined : (JSON.parse(JSON.stringify(options.staticData)) as IDataObject),
		settings: { timezone: options.timezone ?? 'Europe/Berlin', executionOrder: 'v1' },
	});
}

/** One poll of the trigger, as n8n runs it on schedule ('trigger') or on "Test step" ('manual'). */
export async function runPoll(
	workflow: Workflow,
	credentials: CredentialValues,
	mode: Extract<WorkflowExecuteMode, 'trigger' | 'manual'> = 'trigger',
): Promise<IDataObject[]> {
	const node = workflow.getNode(TRIGGER_NAME) as INode;
	const workflowData = { id: workflow.id, name: workflow.name, nodes: [node], connections: {}, settings: workflow.settings } as unknown as IWorkflowBase;
	const context = new PollContext(workflow, node, additionalDataFor(credentials, workflowData), mode, mode === 'manual' ? 'manual' : 'activate');
	const type = nodeTypes.getByNameAndVersion(TRIGGER_NODE_TYPE, 1);
	const output = await type.poll?.call(context);
	return (output?.[0] ?? []).map((item) => item.json);
}

/** The trigger's static data as n8n saves it after a poll: as JSON, through its change-tracking proxy. */
export function savedState(workflow: Workflow): IDataObject {
	return JSON.parse(JSON.stringify(workflow.staticData)) as IDataObject;
}
