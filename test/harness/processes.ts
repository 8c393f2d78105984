import { jest } from '@jest/globals';
import type { INodeType } from 'n8n-workflow';

import { storeCallsOfProcesses } from './storeCallsOfProcesses';
import { registerNodeType } from './workflow';

/**
 * Registers the node as a second n8n process (a queue-mode worker) loads it: with its own copy of
 * every module, sharing the model of n8n's store, as node type `type`.
 */
export function registerSecondProcess(type: string): void {
	jest.isolateModules(() => {
		const { MailingPlatform } = jest.requireActual<{ MailingPlatform: new () => INodeType }>('../../nodes/MailingPlatform/MailingPlatform.node');
		const ownStore = jest.requireActual<{ keyStoreIdle: () => Promise<void> }>('../../nodes/MailingPlatform/helpers/keyStore');
		registerNodeType(type, new MailingPlatform());
		storeCallsOfProcesses.push(ownStore.keyStoreIdle);
	});
}
