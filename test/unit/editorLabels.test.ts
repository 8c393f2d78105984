import type { INode, INodeParameters, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { MailingPlatformApi } from '../../credentials/MailingPlatformApi.credentials';
import { MailingPlatform } from '../../nodes/MailingPlatform/MailingPlatform.node';
import { MailingPlatformTrigger } from '../../nodes/MailingPlatformTrigger/MailingPlatformTrigger.node';
import { NODE_TYPE, nodeTypes, TRIGGER_NODE_TYPE } from '../harness/workflow';

/** The canvas subtitle as n8n's editor computes it: the node type's subtitle expression on the node. */
function subtitle(type: string, description: INodeTypeDescription, parameters: INodeParameters): unknown {
	const node: INode = { id: 'n', name: 'Node', type, typeVersion: 1, position: [0, 0], parameters };
	const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes });
	return workflow.expression.getSimpleParameterValue(node, description.subtitle as string, 'internal', {});
}

/** The parameters the panel shows for these values (names of visible properties; collections with their option names). */
function visible(description: INodeTypeDescription, parameters: INodeParameters): Map<string, INodeProperties> {
	const node = { typeVersion: 1 } as INode;
	const shown = description.properties.filter((property) =>
		NodeHelpers.displayParameter(parameters, property, node, description),
	);
	return new Map(shown.map((property) => [property.name, property]));
}

describe('what the editor shows', () => {
	const action = new MailingPlatform().description;
	const trigger = new MailingPlatformTrigger().description;

	it.each([
		[{ resource: 'report', operation: 'getBlocks' }, 'Get Blocks'],
		[{ resource: 'mailing', operation: 'startMessageSizeCheck' }, 'Start Message Size Check'],
		[{ resource: 'mailing', operation: 'schedule' }, 'Schedule Mailing'],
		[{ resource: 'transaction', operation: 'create' }, 'Create Transaction'],
		[{ resource: 'contactField', operation: 'rename' }, 'Rename Contact Field'],
	])('the action node on the canvas reads %j as "%s"', (parameters, expected) => {
		expect(subtitle(NODE_TYPE, action, parameters)).toBe(expected);
	});

	it('the trigger on the canvas reads its event as "Block Status Changed"', () => {
		expect(subtitle(TRIGGER_NODE_TYPE, trigger, { event: 'blockStatusChanged' })).toBe('Block Status Changed');
	});

	it('the nodes panel entry, which shows the trigger’s description, names every resource of the action node and the trigger’s event', () => {
		const resources = action.properties.find((property) => property.name === 'resource')?.options ?? [];
		expect(resources.length).toBe(4);
		for (const { name } of resources) expect(trigger.description.toLowerCase()).toContain(name.toLowerCase());
		expect(trigger.description.startsWith(action.description)).toBe(true);
		expect(trigger.description).toContain('when contacts are blocked or unblocked');
	});

	const optionNames = (property: INodeProperties | undefined) =>
		(property?.options ?? []).map((option) => option.name);

	it('Count Blocks offers no fields to return; Get Blocks offers them as output fields under the stored filters names', () => {
		const count = visible(action, { resource: 'report', operation: 'countBlocks' }).get('filters');
		expect(count?.displayName).toBe('Filters');
		expect(optionNames(count)).not.toEqual(expect.arrayContaining(['standardFields']));
		expect(optionNames(count)).not.toContain('customFields');

		const get = visible(action, { resource: 'report', operation: 'getBlocks' }).get('filters');
		expect(get?.displayName).toBe('Filters and Output Fields');
		expect(optionNames(get)).toEqual(expect.arrayContaining(['standardFields', 'customFields', 'fromDate']));
	});

	it('warns, with Schedule chosen and only then, that it must be the last call for a mailing', () => {
		const notices = (operation: string) =>
			[...visible(action, { resource: 'mailing', operation }).values()].filter((property) => property.type === 'notice').map((property) => property.displayName);
		expect(notices('schedule')).toEqual(['Schedule must be the last call for a mailing: changing its content afterwards stops it from being sent']);
		expect(notices('startBounceCheck')).toEqual([]);
	});

	it('says every field, option and notice of both nodes and the credential in at most two sentences', () => {
		const texts = (property: INodeProperties): string[] => {
			const own = [property.description, property.type === 'notice' ? property.displayName : undefined];
			const nested = (property.options ?? []).flatMap((option) =>
				'values' in option ? option.values.flatMap(texts) : 'type' in option ? texts(option) : [option.description],
			);
			return [...own, ...nested].filter((text): text is string => typeof text === 'string' && text !== '');
		};
		const all = [...action.properties, ...trigger.properties, ...new MailingPlatformApi().properties];
		// "e.g." ends no sentence; a sentence ends at . ! or ? before a space or the end.
		const sentences = (text: string) => text.replace(/\b(e\.g|i\.e)\./g, '$1').match(/[.!?](?=\s|$)/g)?.length ?? 1;
		const long = all.flatMap(texts).filter((text) => sentences(text) > 2);
		expect(all.length).toBeGreaterThan(60);
		expect(long).toEqual([]);
	});

	it('hints for the Deduplication Key the expression the README gives behind a Webhook node', () => {
		const options = visible(action, { resource: 'transaction', operation: 'create', inputMode: 'fields' }).get('options');
		const key = options?.options?.find((option) => 'name' in option && option.name === 'deduplicationKey') as INodeProperties;
		const readme = readFileSync(join(__dirname, '../../README.md'), 'utf8');
		expect(key.hint).toContain('{{ $json.body.id }}');
		expect(readme).toContain('`{{ $json.body.id }}` where **Transaction › Create** follows n8n\'s Webhook node');
	});

	it('warns, while the Transaction Type ID is 0 and only then, that every item would be refused', () => {
		const notices = (parameters: INodeParameters) =>
			[...visible(action, { resource: 'transaction', operation: 'create', inputMode: 'fields', ...parameters }).values()]
				.filter((property) => property.type === 'notice')
				.map((property) => property.displayName);
		const typeIdNotice = 'Set the Transaction Type ID: 0 is no type, and every item would be refused. Find the ID in the platform, or choose the type by name.';
		expect(notices({ typeBy: 'id', typeId: 0 })).toContain(typeIdNotice);
		expect(notices({ typeBy: 'id', typeId: 7 })).not.toContain(typeIdNotice);
		expect(notices({ typeBy: 'name', typeId: 0 })).not.toContain(typeIdNotice);
	});
});
