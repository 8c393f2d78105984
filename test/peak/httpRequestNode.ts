/**
 * n8n's HTTP Request node sending the POST that Transaction › Create sends for one shop order
 * (`orderConfirmationParameters`): the same URL and body, byte for byte, with the API key as a
 * Basic header. What one order costs through it is the baseline of the common flow, in
 * `npm run bench` and in test:peak.
 */
import { ORDER_TYPE } from './workflows';

export const HTTP_REQUEST_NODE = { type: 'n8n-nodes-base.httpRequest', typeVersion: 4.4 } as const;

/** The Authorization header the service wants: the API key, Basic. */
export const authorizationHeader = (service: { apiKey: string }) => `Basic ${Buffer.from(service.apiKey).toString('base64')}`;

/**
 * The node's parameters for the order at `order` (an expression's path, e.g. `$json.body`): the
 * Authorization header written in the node, or taken from a credential of n8n's generic type
 * `genericAuthType` (e.g. `httpHeaderAuth`).
 */
export function httpRequestParameters(order: string, service: { baseUrl: string; apiKey: string }, genericAuthType?: string): Record<string, unknown> {
	const transaction = `{ type: ${ORDER_TYPE.id}, import: { contact: { email: ${order}.email, permission: 3 }, content: { "order.id": ${order}.id, "order.total": ${order}.total } } }`;
	const authorization =
		genericAuthType === undefined
			? { sendHeaders: true, headerParameters: { parameters: [{ name: 'Authorization', value: authorizationHeader(service) }] } }
			: { authentication: 'genericCredentialType', genericAuthType };
	return {
		method: 'POST',
		url: `${service.baseUrl}/transactions?ignore_invalid_transactions=true`,
		...authorization,
		sendBody: true,
		contentType: 'json',
		specifyBody: 'json',
		jsonBody: `={{ JSON.stringify([${transaction}]) }}`,
		options: {},
	};
}
