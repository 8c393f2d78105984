import { defineResource } from '../resource';
import * as create from './create.operation';

export const transaction = defineResource({ name: 'Transaction', value: 'transaction' }, 'create', {
	create: {
		...create,
		label: { name: 'Create', description: 'Send transaction e-mails such as order confirmations, all items batched', action: 'Create transactions' },
	},
});
