import { DateTime } from 'luxon';
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeParameters, INodeType } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import {
	parseJsonObject,
	readBoolean,
	readChoice,
	readDateTime,
	readerFor,
	readInteger,
} from '../../nodes/MailingPlatform/helpers/parameters';
import { useServiceDouble } from '../harness/double';
import { SOURCE_NODE_TYPE } from '../harness/sourceNode';
import { registerNodeType, runWorkflow } from '../harness/workflow';

const BERLIN = 'Europe/Berlin';

describe('parameters › read once, per item, or from the item itself, as n8n reads them', () => {
	const { credentials } = useServiceDouble();

	/** What the probe read for each item: n8n's value, the reader's, and how often the reader asked n8n. */
	let readings: Array<{ n8n: unknown; ours: unknown; evaluations: number }> = [];
	const PROBE = 'test.parameterProbe';
	const probe: INodeType = {
		description: {
			displayName: 'Parameter Probe',
			name: PROBE,
			group: ['transform'],
			version: 1,
			description: 'Reads one parameter per item through n8n and through readerFor',
			defaults: { name: 'Parameter Probe' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [
				{ displayName: 'Read', name: 'read', type: 'string', default: 'object' },
				{ displayName: 'Text', name: 'text', type: 'string', default: '' },
				{ displayName: 'Object', name: 'object', type: 'json', default: '={{ $json }}' },
			],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const name = this.getNode().parameters.read as string;
			const fallback = name === 'object' ? '={{ $json }}' : '';
			let evaluations = 0;
			const counted = Object.create(this, {
				getNodeParameter: { value: (...args: Parameters<IExecuteFunctions['getNodeParameter']>) => (evaluations++, this.getNodeParameter(...args)) },
			}) as IExecuteFunctions;
			const read = readerFor<unknown>(counted, name, fallback);
			readings = this.getInputData().map((_, itemIndex) => {
				const before = evaluations;
				const ours = read(itemIndex);
				return { n8n: this.getNodeParameter(name, itemIndex, fallback), ours, evaluations: evaluations - before };
			});
			return [[]];
		},
	};
	registerNodeType(PROBE, probe);

	async function readWith(parameters: INodeParameters, items: IDataObject[]) {
		const nodes: INode[] = [
			{ id: 'source', name: 'Source Items', type: SOURCE_NODE_TYPE, typeVersion: 1, position: [0, 0], parameters: { items: JSON.stringify(items.map((json) => ({ json }))) } },
			{ id: 'probe', name: 'Probe', type: PROBE, typeVersion: 1, position: [200, 0], parameters },
		];
		readings = [];
		await runWorkflow(nodes, { 'Source Items': { main: [[{ node: 'Probe', type: 'main', index: 0 }]] } }, credentials());
		return readings;
	}

	const items = [
		{ id: 5310, body: { id: 'A-1', list: [1, { a: null }] }, content: { 'order.id': 'B-2' }, 'a b': { c: 2 }, empty: null },
		{ id: '7', body: 'not an object', content: {} },
		{},
	];

	it.each([
		['={{ $json }}', 'object'],
		['={{$json}}', 'object'],
		['={{ $json.id }}', 'text'],
		['={{ $json.body.id }}', 'text'],
		['={{ $json.body.list }}', 'text'],
		['={{ $json.content["order.id"] }}', 'text'],
		["={{$json['a b'].c}}", 'text'],
		['={{ $json.empty }}', 'text'],
		['={{ $json.missing.deeper }}', 'text'],
	])('takes %s from the item without evaluating it, giving what n8n gives', async (expression, name) => {
		for (const reading of await readWith({ read: name, [name]: expression }, items)) {
			expect(reading.ours).toStrictEqual(reading.n8n);
			expect(reading.evaluations).toBe(0);
		}
	});

	it('takes the item itself when Transaction JSON is left at its default', async () => {
		for (const reading of await readWith({}, items)) {
			expect(reading.ours).toStrictEqual(reading.n8n);
			expect(reading.evaluations).toBe(0);
		}
	});

	it.each([
		['= {{$json }} ', 'object'],
		['={{ $json.id }} ', 'text'],
		['=A-{{ $json.id }}', 'text'],
		['={{ $json.a }}{{ $json.b }}', 'text'],
		['={{ $json.id + 1 }}', 'text'],
		['={{ $json.body.list[0] }}', 'text'],
	])('evaluates %s with n8n, item by item', async (expression, name) => {
		for (const reading of await readWith({ read: name, [name]: expression }, items)) {
			expect(reading.ours).toStrictEqual(reading.n8n);
			expect(reading.evaluations).toBe(1);
		}
	});

	it('reads a fixed value once for all items', async () => {
		const readings = await readWith({ read: 'text', text: 'Order' }, items);
		expect(readings.map((reading) => [reading.ours, reading.evaluations])).toEqual([['Order', 0], ['Order', 0], ['Order', 0]]);
	});
});

describe('parameters › JSON objects', () => {
	it('takes an object as it is and JSON text holding one', () => {
		const object = { 'order.id': 'A-1' };
		expect(parseJsonObject(object, 'Content')).toBe(object);
		expect(parseJsonObject(' {"order.total": 59.9} ', 'Content')).toEqual({ 'order.total': 59.9 });
	});

	it('refuses text that is not JSON and JSON that is not one object, naming the field', () => {
		expect(() => parseJsonObject('{"order.id": ', 'Content')).toThrow('Content is not valid JSON:');
		expect(() => parseJsonObject('[{"order.id": "A-1"}]', 'Transaction JSON')).toThrow('Transaction JSON must be a JSON object');
		expect(() => parseJsonObject(42, 'Content')).toThrow('Content must be a JSON object');
	});
});

describe('parameters › typed values from expressions', () => {
	it('reads whole numbers given as numbers or digits only', () => {
		expect(readInteger('12', 'Mailing ID', 1)).toBe(12);
		expect(readInteger(' 7 ', 'Mailing ID', 1)).toBe(7);
		expect(() => readInteger('12a', 'Mailing ID', 1)).toThrow('Mailing ID must be a whole number of at least 1, not "12a"');
		expect(() => readInteger('', 'Mailing ID', 1)).toThrow('Mailing ID is empty');
		expect(() => readInteger(null, 'Mailing ID', 1)).toThrow('Mailing ID is empty');
		expect(() => readInteger(true, 'Mailing ID', 1)).toThrow('not true');
		expect(() => readInteger('9007199254740993', 'Mailing ID', 1)).toThrow('must be a whole number');
		expect(() => readInteger(4, 'Waves', 1, 3)).toThrow('Waves must be a whole number from 1 to 3, not 4');
	});

	it('reads booleans and their text forms only', () => {
		expect(readBoolean('TRUE', 'Activate')).toBe(true);
		expect(readBoolean(false, 'Activate')).toBe(false);
		expect(() => readBoolean('yes', 'Activate')).toThrow('Activate must be true or false, not "yes"');
	});

	it('reads one of the offered values, compared as text', () => {
		expect(readChoice(' 30m ', 'Uniform Interval', ['hour', '30m'])).toBe('30m');
		expect(() => readChoice('5m', 'Uniform Interval', ['hour', '30m'])).toThrow('Uniform Interval must be one of "hour", "30m", not "5m"');
	});
});

describe('parameters › date-times, without an offset in the workflow timezone', () => {
	const read = (value: unknown, zone = BERLIN) => readDateTime(value, 'Scheduled At', zone);

	it('reads picker and ISO text without an offset, and the SQL form, as wall-clock time in the zone', () => {
		const at = read('2030-04-01T09:30:59');
		expect(at.toISO()).toBe('2030-04-01T09:30:59.000+02:00');
		expect(at.zoneName).toBe(BERLIN);
		expect(read('2030-04-01 09:30', 'America/New_York').toISO()).toBe('2030-04-01T09:30:00.000-04:00');
		expect(read(' 2030-01-01 09:30:15 ').toISO()).toBe('2030-01-01T09:30:15.000+01:00');
	});

	it('converts text with Z or an offset, a Date, a Luxon DateTime and epoch milliseconds to the zone', () => {
		expect(read('2030-04-01T07:30:00Z').toFormat('HH:mm')).toBe('09:30');
		expect(read('2030-04-01T09:30:00-04:00').toFormat('HH:mm')).toBe('15:30');
		expect(read(new Date('2030-01-01T07:30:00Z')).toFormat('HH:mm')).toBe('08:30');
		const tokyo = DateTime.fromISO('2030-01-01T18:00', { zone: 'Asia/Tokyo' });
		expect(read(tokyo).toFormat('yyyy-MM-dd HH:mm')).toBe('2030-01-01 10:00');
		// 1,900,000,000,000 ms after 1970-01-01T00:00Z is 2030-03-17T17:46:40Z.
		expect(read(1_900_000_000_000).toISO()).toBe('2030-03-17T18:46:40.000+01:00');
	});

	it('refuses empty values and anything that is not a date-time, naming the field', () => {
		expect(() => read('')).toThrow('Scheduled At is empty');
		expect(() => read('  ')).toThrow('Scheduled At is empty');
		expect(() => read(null)).toThrow('Scheduled At is empty');
		expect(() => read('2030-02-30T10:00')).toThrow('Scheduled At is not a date-time: "2030-02-30T10:00"');
		expect(() => read('next tuesday')).toThrow('Scheduled At is not a date-time: "next tuesday"');
		expect(() => read('1900000000000')).toThrow('Scheduled At is not a date-time');
		expect(() => read(Number.NaN)).toThrow('Scheduled At is not a date-time: NaN');
		expect(() => read(new Date('never'))).toThrow('Scheduled At is not a date-time');
		expect(() => read(true)).toThrow('Scheduled At is not a date-time: true');
	});
});
