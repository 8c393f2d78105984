/**
 * What the package does, for n8n's nodes panel. The panel lists the action node and the trigger
 * as one entry and shows the trigger's description for it (n8n's editor sets the merged entry's
 * description to the trigger's), so the trigger's description starts with the action node's.
 */
const actions = 'Send transaction e-mails, check and schedule mailings, read block and unsubscription reports, and rename contact fields';

export const PACKAGE_DESCRIPTION = {
	actions,
	withTrigger: `${actions}; the trigger starts workflows when contacts are blocked or unblocked`,
} as const;
