/**
 * The README's queue-mode setup, its second half as a user sets it up: an n8n API key that may
 * read executions, an n8n API credential holding it, and examples/redeliver-pending-orders.json
 * imported with only that credential and the shop workflow's webhook URL filled in (its Redis
 * credential is the one the shop example uses), then published. From then on n8n itself delivers
 * again, every minute, what the shop workflow kept and did not decide; the scenarios only watch.
 */
import { signedIn } from '../peak/publish';
import { createPublished, n8nApiCredential } from '../peak/retryExample';

export const REDELIVERY_EXAMPLE = 'examples/redeliver-pending-orders.json';

const API_NODE = 'Its Execution';
const DELIVERING_NODE = 'Deliver Again';

/** Sets up the example to deliver again to `shopWebhookUrl` on the n8n at `port`, and publishes it; answers its workflow's id. */
export async function installRedeliveryExample(port: number, shopWebhookUrl: string): Promise<string> {
	const session = await signedIn(port);
	const credential = await n8nApiCredential(session, port, `Deliver again ${shopWebhookUrl.split('/').pop()}`, ['execution:read']);
	return await createPublished(session, port, REDELIVERY_EXAMPLE, (node) => {
		if (node.name === API_NODE) node.credentials = { n8nApi: { id: credential.id, name: credential.name } };
		if (node.name === DELIVERING_NODE) node.parameters.url = shopWebhookUrl;
	});
}
