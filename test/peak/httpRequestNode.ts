/**
 * n8n's HTTP Request node sending the POST that Transaction › Create sends for one shop order
 * (`orderConfirmationParameters`): the same URL and body, byte for byte, with the API key as a
 * Basic header. What one order costs through it is the baseline of the common flow, in
 * `npm run bench` and in test:peak.
 */
import { ORDER_TYPE } from './workflows';

export const HTTP_REQUEST_NODE = { type: 'n8n-nodes-base.httpRequest', typeVersion: 4.4 } as const;

/** The node's parameters for the order at `order` (an expression's path, e.g. `$json.body`). */
export function httpRequestParameters(order: string, service: { baseUrl: string; apiKey: string }): Record<string, unknown> {
	const transaction = `{ type: ${ORDER_TYPE.id}, import: { contact: { email: ${order}.email, permission: 3 }, content: { "order.id": ${order}.id, "order.total": ${order}.total } } }`;
	return {
		method: 'POST',
		url: `${service.baseUrl}/transactions?ignore_invalid_transactions=true`,
		sendHeaders: true,
		headerParameters: { parameters: [{ name: 'Authorization', value: `Basic ${Buffer.from(service.apiKey).toString('base64')}` }] },
		sendBody: true,
		contentType: 'json',
		specifyBody: 'json',
		jsonBody: `={{ JSON.stringify([${transaction}]) }}`,
		options: {},
	};
}
