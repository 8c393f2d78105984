import { startCheckOperation } from './check';

export const { description, execute } = startCheckOperation({
	operation: 'startBounceCheck',
	check: 'bounce',
	pathSegment: 'bounce',
	label: 'bounce',
});
