import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

const ORDER_ITEMS = [
	{ title: 'Ceramic mug, blue glaze', articlenumber: 'MUG-001', quantity: 2, price: 12.5, url: 'https://shop.example.com/p/mug-001' },
	{ title: 'Tea towel, linen', articlenumber: 'TOW-017', quantity: 1, price: 8.9, url: 'https://shop.example.com/p/tow-017' },
	{ title: 'Loose leaf tea, 250 g', articlenumber: 'TEA-250', quantity: 3, price: 6.75, url: 'https://shop.example.com/p/tea-250' },
];
const BILLING = { fullname: 'Anna Example', 'address.line1': 'Main Street 1', 'address.line2': '12345 Sampletown', 'method.type': 'invoice' };
const SHIPPING = { fullname: 'Anna Example', 'address.line1': 'Main Street 1', 'address.line2': '12345 Sampletown', method: 'parcel', tracking_url: 'https://track.example.com/?id=0000000000' };
const EMAILS = ['anna@example.com', 'ben@example.com', 'carla@example.com'];

export function orderId(index: number): string {
	return `ORD-${String(index).padStart(7, '0')}`;
}

/** One generic-order transaction of about 1 KB; nested parts are shared to keep 100,000 compact. */
export function order(index: number): IDataObject {
	return {
		type: 1,
		contact: { email: EMAILS[index % 3] },
		content: {
			'order.id': orderId(index),
			'order.date_formatted': '21.11.2026',
			'order.currency': 'EUR',
			'order.items': ORDER_ITEMS,
			'order.subtotal': 54.15,
			'order.shipping_fee': 4.9,
			'order.total': 59.05 + index / 100,
			billing: BILLING,
			shipping: SHIPPING,
			'customer.salutation': 'Ms',
			'customer.full_name': 'Anna Example',
			'customer.id': `CUST-${index}`,
		},
	};
}

export const ORDERS_NODE_TYPE = 'bench.orders';

/** A source node emitting `count` generated orders from order number `first` on, one item each. */
export const ordersNode: INodeType = {
	description: {
		displayName: 'Orders',
		name: ORDERS_NODE_TYPE,
		group: ['input'],
		version: 1,
		description: 'Generated orders',
		defaults: { name: 'Orders' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [
			{ displayName: 'Count', name: 'count', type: 'number', default: 0 },
			{ displayName: 'First', name: 'first', type: 'number', default: 0 },
		],
	},
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const count = this.getNodeParameter('count', 0) as number;
		const first = this.getNodeParameter('first', 0) as number;
		return [Array.from({ length: count }, (_, index) => ({ json: order(first + index) }))];
	},
};
