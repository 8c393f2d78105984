import { startCheckOperation } from './check';

export const { description, execute } = startCheckOperation({
	operation: 'startMessageSizeCheck',
	check: 'messageSize',
	pathSegment: 'messagesize',
	label: 'message size',
});
