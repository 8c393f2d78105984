import type { IDataObject } from 'n8n-workflow';

/** A generic-order transaction in the API's shape, padded to about `bytes` bytes of JSON. */
export function order(index: number, bytes = 0): IDataObject {
	const transaction: IDataObject = {
		type: 1,
		contact: { email: ['anna@example.com', 'ben@example.com', 'carla@example.com'][index % 3] },
		content: {
			'order.id': `A-${index}`,
			'order.total': 19.5 + index,
			'order.items': [{ title: 'Mug', quantity: 1, price: 19.5 }],
			billing: { fullname: 'Anna Example', 'address.line1': 'Main Street 1' },
		},
	};
	const size = JSON.stringify(transaction).length;
	if (bytes > size) (transaction.content as IDataObject)['generic_fields.string1'] = 'x'.repeat(bytes - size - 35);
	return transaction;
}

export const orderIds = (count: number) => Array.from({ length: count }, (_, index) => `A-${index}`);

/** Transaction › Create reading the whole transaction from each item's JSON. */
export const jsonMode = { resource: 'transaction', operation: 'create', inputMode: 'json' };

/** Transaction › Create from fields: type 1, the item's e-mail, its order as content. */
export const fieldsMode = {
	resource: 'transaction',
	operation: 'create',
	inputMode: 'fields',
	typeBy: 'id',
	typeId: 1,
	contactEmail: '={{ $json.email }}',
	content: '={{ $json.order }}',
};
