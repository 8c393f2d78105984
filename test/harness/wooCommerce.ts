import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { ServiceDouble } from '../double/server';

interface ExampleFile {
	nodes: Array<{ name: string; parameters: INodeParameters }>;
	pinData: Record<string, Array<{ json: IDataObject }>>;
}

const example = JSON.parse(
	readFileSync(join(__dirname, '..', '..', 'examples', 'woocommerce-order-mapped-fields.json'), 'utf8'),
) as ExampleFile;
export const exampleNode = example.nodes.find((node) => node.name === 'Send Order Confirmation')!;
/** The pinned WooCommerce webhook item: `{ headers, params, query, body: <order> }`. */
export const webhookItem = example.pinData['WooCommerce Order Webhook'][0].json;
export const wooOrder = webhookItem.body as IDataObject;

/** A WooCommerce order (as the webhook delivers it) with some fields replaced. */
export const wooItem = (changes: IDataObject = {}): IDataObject => ({ ...webhookItem, body: { ...wooOrder, ...changes } });

/** Transaction › Create from fields with the content mapped field by field (`value`), creating the contact if missing. */
export const mapped = (value: Record<string, string>, more: IDataObject = {}): INodeParameters => ({
	resource: 'transaction',
	operation: 'create',
	inputMode: 'fields',
	typeBy: 'id',
	typeId: 1,
	contactEmail: '={{ $json.body.billing.email }}',
	contactMode: 'import',
	permission: 2,
	contentMode: 'mapped',
	contentFields: { mappingMode: 'defineBelow', value, ...more } as INodeParameters,
});

export const MONEY = {
	'order.id': '={{ $json.body.number }}',
	'order.total': '={{ $json.body.total }}',
	'order.tax_rate': '={{ $json.body.tax_lines[0].rate_percent }}',
};

/** The content of every transaction the double queued, in the import form the mapped mode sends. */
export const sentContent = (double: ServiceDouble) =>
	double.transactions.queued.map((queued) => (queued.transaction?.import as IDataObject).content as IDataObject);
