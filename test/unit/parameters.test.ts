import { DateTime } from 'luxon';
import type { IExecuteFunctions, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import {
	parseJsonObject,
	readBoolean,
	readChoice,
	readDateTime,
	readerFor,
	readInteger,
} from '../../nodes/MailingPlatform/helpers/parameters';

const BERLIN = 'Europe/Berlin';

describe('parameters › read once, per item, or from the item itself', () => {
	/** A node holding `parameters`, whose evaluations are counted: an expression evaluates to `<expression> #<item>`. */
	function node(parameters: INodeParameters, items: INodeExecutionData[] = [{ json: {} }, { json: {} }, { json: {} }]) {
		const evaluations: Array<[string, number]> = [];
		const context = {
			getNode: () => ({ parameters }),
			getInputData: () => items,
			getNodeParameter: (name: string, itemIndex: number, fallback: unknown) => {
				evaluations.push([name, itemIndex]);
				const raw = name.split('.').reduce<unknown>((value, key) => (value as INodeParameters | undefined)?.[key], parameters) ?? fallback;
				return typeof raw === 'string' && raw.startsWith('=') ? `${raw.slice(1)} #${itemIndex}` : raw;
			},
		} as unknown as IExecuteFunctions;
		return { context, evaluations };
	}

	it('reads a fixed value once for all items', () => {
		const { context, evaluations } = node({ options: { typeName: 'Order' } });
		const read = readerFor(context, 'options.typeName', '');
		expect([0, 1, 2].map(read)).toEqual(['Order', 'Order', 'Order']);
		expect(evaluations).toEqual([['options.typeName', 0]]);
	});

	it('reads a value holding an expression, anywhere inside, per item', () => {
		const { context, evaluations } = node({ contentFields: { value: { 'order.id': '={{ $json.id }}' } } });
		const read = readerFor<unknown>(context, 'contentFields', {});
		read(0);
		read(2);
		expect(evaluations).toEqual([
			['contentFields', 0],
			['contentFields', 2],
		]);
	});

	it('takes the item itself for {{ $json }}, given or as the fallback, evaluating nothing', () => {
		const items = [{ json: { type: 1 } }, { json: { type: 2 } }];
		for (const parameters of [{ transactionJson: '= {{$json }} ' }, {}]) {
			const { context, evaluations } = node(parameters, items);
			const read = readerFor<unknown>(context, 'transactionJson', '={{ $json }}');
			expect([read(0), read(1)]).toEqual([{ type: 1 }, { type: 2 }]);
			expect(evaluations).toEqual([]);
		}
	});

	it('takes a plain field path such as {{ $json.body.id }} from the item, evaluating nothing', () => {
		const items = [{ json: { body: { id: 5310 } } }, { json: { body: {} } }, { json: { other: 1 } }];
		const { context, evaluations } = node({ options: { deduplicationKey: '={{ $json.body.id }}' } }, items);
		const read = readerFor<unknown>(context, 'options.deduplicationKey', '');
		expect([read(0), read(1), read(2)]).toEqual([5310, undefined, undefined]);
		expect(evaluations).toEqual([]);

		const quoted = node({ key: `={{ $json.content["order.id"] }}`, other: "={{$json['a b'].c}}" }, [{ json: { content: { 'order.id': 'A-1' }, 'a b': { c: 2 } } }]);
		expect(readerFor<unknown>(quoted.context, 'key', '')(0)).toBe('A-1');
		expect(readerFor<unknown>(quoted.context, 'other', '')(0)).toBe(2);
		expect(quoted.evaluations).toEqual([]);
	});

	it('evaluates any other expression per item, also one that starts like {{ $json }}', () => {
		for (const expression of ['={{ $json.order + 1 }}', '={{ $json["order\\".id"] }}', '={{ $json.items[0] }}', '=A-{{ $json.id }}', '={{ $json.a }}{{ $json.b }}']) {
			const { context, evaluations } = node({ transactionJson: expression });
			expect(readerFor<unknown>(context, 'transactionJson', '={{ $json }}')(1)).toBe(`${expression.slice(1)} #1`);
			expect(evaluations).toEqual([['transactionJson', 1]]);
		}
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
