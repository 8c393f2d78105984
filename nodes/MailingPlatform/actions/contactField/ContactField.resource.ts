import { defineResource } from '../resource';
import * as rename from './rename.operation';

export const contactField = defineResource({ name: 'Contact Field', value: 'contactField' }, 'rename', {
	rename: {
		description: rename.description,
		execute: rename.execute,
		label: { name: 'Rename', description: 'Rename a custom contact field, keeping its type and values', action: 'Rename a custom contact field' },
		onRetry: 'Retry On Fail repeats only the renames the service did not take (it stayed unavailable, or was never reached); a rename it answered is not sent again, and its result stays.',
	},
});
