import { count, fixed, hundredthsMs, seconds } from './format';
import type { Measurements } from './scenario';
import type { Row, Table } from './tables';

const FLOWS = [
	{ flow: 'create', label: 'Create (Fields)' },
	{ flow: 'createKeyed', label: 'Create with the order id as Deduplication Key' },
	{ flow: 'httpRequest', label: 'HTTP Request node, the same POST' },
];

/** One flow's figure over another's, both from the same run. */
const ratio =
	(flow: string, over: string, figure: string): Row['value'] =>
	(run) =>
		run.rush[`${flow}${figure}`] / run.rush[`${over}${figure}`];

/** The rush: many one-order executions started at once, through Create without and with a key, and through n8n's HTTP Request node. */
export function rushTable(first: Measurements): Table {
	const perFlow = (measure: string, figure: string, format: Row['format']): Row[] =>
		FLOWS.map(({ flow, label }) => ({ measure: `${label}: ${measure}`, value: (run) => run.rush[`${flow}${figure}`], format }));
	return {
		title:
			`Rush: ${count(first.orders)} one-order executions (Webhook-like source -> one node) started at once, each its own WorkflowExecute run, ` +
			`against a double answering every request after ${count(first.latencyMs)} ms; ${count(first.rounds)} rushes of each flow, the flows' order reversed every round, ` +
			`after one unmeasured rush of each; every order checked queued exactly once; the key's history full before every rush ` +
			`(${count(first.history)} keys and their marks, ${count(2 * first.history)} entries) in n8n's store modelled in-process; ` +
			`every node on n8n's own n8n-core and n8n-workflow in one process, the double in its own`,
		rows: [
			...perFlow('POSTs the double received / orders', 'PostsPerOrder', fixed(3)),
			...perFlow("calls of n8n's store the node made (checkProcessedAndRecord, removeProcessed) / orders", 'StoreCallsPerOrder', fixed(4)),
			{ measure: 'Create with the key: of which removeProcessed', value: (run) => run.rush.createKeyedStoreRemovalsPerOrder, format: fixed(4) },
			{ measure: "Create with the key: keys and marks handed to n8n's store / orders", value: (run) => run.rush.createKeyedStoreEntriesPerOrder, format: fixed(2) },
			...perFlow('CPU of all threads of the bench process per order (GC included: a full GC closes each rush)', 'CpuMsPerOrder', hundredthsMs),
			...perFlow('of which that closing full GC, per order', 'ClosingGcCpuMsPerOrder', hundredthsMs),
			...perFlow(`wall time of a rush, first start to last end (mean of ${count(first.rounds)})`, 'WallMsPerRush', seconds),
			...perFlow("of which the bench's main thread waited for a CPU (the machine's other work, the double)", 'WaitingForCpuMsPerRush', seconds),
			...perFlow('most requests waiting at the double at one moment', 'MostInFlight', count),
			{ measure: 'Create / HTTP Request node, POSTs per order', value: ratio('create', 'httpRequest', 'PostsPerOrder'), format: fixed(3) },
			{ measure: 'Create / HTTP Request node, CPU of all threads per order', value: ratio('create', 'httpRequest', 'CpuMsPerOrder'), format: fixed(2) },
			{ measure: 'Create / HTTP Request node, wall time of a rush', value: ratio('create', 'httpRequest', 'WallMsPerRush'), format: fixed(2) },
			{ measure: 'Create with the key / Create, CPU of all threads per order', value: ratio('createKeyed', 'create', 'CpuMsPerOrder'), format: fixed(2), goal: '≤ 1.2' },
			{ measure: 'Create with the key / Create, wall time of a rush', value: ratio('createKeyed', 'create', 'WallMsPerRush'), format: fixed(2) },
			{ measure: 'Create with the key / HTTP Request node, CPU of all threads per order', value: ratio('createKeyed', 'httpRequest', 'CpuMsPerOrder'), format: fixed(2) },
			{ measure: 'Create with the key / HTTP Request node, wall time of a rush', value: ratio('createKeyed', 'httpRequest', 'WallMsPerRush'), format: fixed(2) },
		],
	};
}
