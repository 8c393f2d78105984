import { count, fixed, hundredthsMs } from './format';
import type { Measurements } from './scenario';
import type { Row, Table } from './tables';

const FLOWS = [
	{ flow: 'create', label: 'Create (Fields)' },
	{ flow: 'createKeyed', label: 'Create with a Deduplication Key' },
	{ flow: 'httpRequest', label: 'HTTP Request node, the same POST' },
	{ flow: 'noOp', label: "NoOp (n8n's execution alone)" },
];

/** `flow`'s figure over the HTTP Request node's; with `less`, each less NoOp's first (the nodes' own share). */
function ratio(flow: string, figure: string, less?: string): Row['value'] {
	return (run) => {
		const of = (name: string) => run.commonFlow[`${name}${figure}`] - (less === undefined ? 0 : run.commonFlow[`${less}${figure}`]);
		return of(flow) / of('httpRequest');
	};
}

/** The common flow: one order per execution through Create and through n8n's HTTP Request node. */
export function commonFlowTable(first: Measurements): Table {
	const perFlow = (measure: string, figure: string, format: Row['format']): Row[] =>
		FLOWS.map(({ flow, label }) => ({ measure: `${label}: ${measure}`, value: (run) => run.commonFlow[`${flow}${figure}`], format }));
	return {
		title:
			`One order per execution (Webhook-like source -> one node), ${count(first.executions)} executions of each flow after ${count(first.warmUp)} to warm up, ` +
			`in rounds of ${count(first.perRound)} alternating; every node on n8n's own n8n-core and n8n-workflow in one process, the double in its own; ` +
			`the key's history full at ${count(first.history)} in n8n's store modelled in-process`,
		rows: [
			...perFlow('CPU of all threads per order', 'CpuMs', hundredthsMs),
			...perFlow('GC pause time per order (V8 gc entries)', 'GcMs', hundredthsMs),
			...perFlow('full GCs per 1,000 orders', 'MajorGcsPer1000', fixed(1)),
			{ measure: 'Create / HTTP Request node, CPU of all threads', value: ratio('create', 'CpuMs'), format: fixed(2), goal: '≤ 1.1' },
			{ measure: 'Create with the key / HTTP Request node, CPU of all threads', value: ratio('createKeyed', 'CpuMs'), format: fixed(2), goal: '≤ 1.2' },
			{ measure: "the same, each less NoOp's (what each node adds to an execution): Create / HTTP Request", value: ratio('create', 'CpuMs', 'noOp'), format: fixed(2) },
			{ measure: "the same, each less NoOp's: Create with the key / HTTP Request", value: ratio('createKeyed', 'CpuMs', 'noOp'), format: fixed(2) },
		],
	};
}
