import { defineResource } from '../resource';
import * as create from './create.operation';

export const transaction = defineResource({ name: 'Transaction', value: 'transaction' }, 'create', {
	create: {
		description: create.description,
		execute: create.execute,
		label: { name: 'Create', description: 'Send transaction e-mails such as order confirmations, all items batched', action: 'Create transactions' },
		onRetry:
			'Retry On Fail sends again only the transactions the service did not take; those it answered, or may have queued, keep their outcome. Retrying the whole execution from the executions list sends everything again, unless a Deduplication Key is set.',
	},
});
