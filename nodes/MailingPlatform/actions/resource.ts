import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import type { FailurePolicy, OperationResult } from '../helpers/itemResults';

/** One operation of a resource: its fields in the panel and what it makes of the input items. */
export interface Operation {
	description: INodeProperties[];
	/** `earlier`: what earlier tries of this node run did at the service (see retryMemory.ts). */
	execute(this: IExecuteFunctions, policy: FailurePolicy, earlier: unknown): Promise<OperationResult>;
	/** What n8n's Retry On Fail repeats of this operation and what it does not, shown when that setting is on. */
	onRetry?: string;
}

/** How the Operation list shows one operation. */
interface OperationLabel {
	name: string;
	description: string;
	action: string;
}

export interface Resource<O extends string = string> {
	name: string;
	value: string;
	operations: Record<O, Operation>;
	/** The Operation list of this resource, followed by every operation's fields. */
	description: INodeProperties[];
}

/**
 * A resource from one record of its operations: the panel offers exactly the operations that
 * have an implementation, since each label sits beside its `execute`.
 */
export function defineResource<O extends string>(
	resource: { name: string; value: string },
	defaultOperation: NoInfer<O>,
	operations: Record<O, Operation & { label: OperationLabel }>,
): Resource<O> {
	const entries = Object.entries(operations) as Array<[O, Operation & { label: OperationLabel }]>;
	const selector: INodeProperties = {
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: [resource.value] } },
		options: entries.map(([value, { label }]) => ({ ...label, value })).sort((a, b) => a.name.localeCompare(b.name)),
		default: defaultOperation,
	};
	return { ...resource, operations, description: [selector, ...entries.flatMap(([, operation]) => operation.description)] };
}
