/**
 * End-to-end run in a real n8n: packs this package, installs it the way n8n installs community
 * packages, imports a credential pointing at the local service double and the case workflows,
 * executes each with `n8n execute` and checks the node's output and the requests the double saw.
 *
 * Usage: node .build-test/test/e2e/run.js [case name ...] [--n8n=VERSION] [--keep]
 * (--n8n picks another n8n release scripts/n8n.ts knows how to install, N8N_1_VERSION for one;
 * --keep leaves the temporary n8n user folder in place for a look at it afterwards.)
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import {
	ensureN8nInstalled,
	executeWorkflow,
	importCredentials,
	importWorkflows,
	installCommunityPackage,
	makeUserFolder,
	n8nEnvironment,
	packProject,
	projectRoot,
	removeFolder,
	onN8nNode,
	selectedN8nVersion,
} from '../../scripts/n8n';
import { installExitHooks, type RunResult, stopAllChildren, tail } from '../../scripts/processes';
import { sandboxCredential, startSandbox } from '../../scripts/sandbox';
import { cases, type E2eCase, type ExecutionResult } from './cases';
import { processedDataRows } from './processedData';
import { prepareForCli, type RunData, type WorkflowFile } from './workflowFile';

/** The whole run, n8n install included, ends by this time whatever happens. */
const OVERALL_LIMIT_MS = 25 * 60_000;
const EXECUTE_LIMIT_MS = 180_000;

const log = (line: string) => console.log(line);

function selectCases(args: string[]): E2eCase[] {
	const named = args.filter((arg) => !arg.startsWith('--'));
	const unknown = named.filter((name) => !cases.some((candidate) => candidate.name === name));
	if (unknown.length > 0) {
		throw new Error(`Unknown case(s): ${unknown.join(', ')}. Known: ${cases.map((c) => c.name).join(' | ')}`);
	}
	return named.length > 0 ? cases.filter((c) => named.includes(c.name)) : cases;
}

/**
 * `n8n execute --rawOutput` prints the run as indented JSON (on failure too, after "Execution
 * error:"), with other lines before and after it; the object ends at the first "}" in column 0.
 */
function parseExecution(output: string): { runData?: RunData; status?: string } {
	for (const start of [...output.matchAll(/^\{$/gm)].map((match) => match.index)) {
		const end = output.indexOf('\n}', start);
		if (end === -1) break;
		try {
			const parsed = JSON.parse(output.slice(start, end + 2)) as { status?: string; data?: { resultData?: { runData?: RunData } } };
			if (parsed.data?.resultData?.runData !== undefined) return { runData: parsed.data.resultData.runData, status: parsed.status };
		} catch {
			// A line that only looks like the start of the result; try the next.
		}
	}
	return {};
}

/** `n8n execute`s that crashed on their way out after printing their whole result, in this run. */
let crashedOnExit = 0;

/**
 * The exit code of `n8n execute`, or, when it crashed with SIGSEGV after printing a finished
 * execution, the code that execution's status stands for. n8n 2.41's `execute` exits without
 * disposing its isolated-vm expression engine, and under Node.js 24 an isolate's garbage
 * collection then sometimes runs into the torn-down platform: with workflows of n8n's own nodes too.
 */
function exitCodeOf(execution: RunResult, status: string | undefined): number | null {
	if (execution.signal !== 'SIGSEGV' || (status !== 'success' && status !== 'error')) return execution.code;
	crashedOnExit += 1;
	return status === 'success' ? 0 : 1;
}

/** Imports the workflow again, under its id, as changed by `edit`: the user edited and saved it. */
async function reimport(workflow: WorkflowFile, edit: (workflow: WorkflowFile) => void, folder: string, env: NodeJS.ProcessEnv): Promise<void> {
	const edited = structuredClone(workflow);
	edit(edited);
	await mkdir(folder, { recursive: true });
	await writeFile(join(folder, `${edited.id}.json`), JSON.stringify(edited));
	await importWorkflows(folder, env);
}

async function main(): Promise<{ passed: number; failed: number }> {
	const selected = selectCases(process.argv.slice(2));
	log(`n8n ${selectedN8nVersion()} on Node.js ${process.versions.node} (test:e2e)`);
	await ensureN8nInstalled(log);

	const scratch = await makeUserFolder('n8n-e2e-');
	const { double } = await startSandbox(OVERALL_LIMIT_MS);
	try {
		const env = await n8nEnvironment(scratch);
		log('Packing the package and installing it as a community package ...');
		const tarball = await packProject(join(scratch, 'pack'));
		await installCommunityPackage(scratch, tarball);

		await importCredentials([sandboxCredential(double)], env, scratch);
		const workflowDir = join(scratch, 'workflows');
		await mkdir(workflowDir);
		const runs: Array<[E2eCase, WorkflowFile]> = [];
		for (const testCase of selected) {
			const workflow = prepareForCli(JSON.parse(await readFile(join(projectRoot, testCase.workflow), 'utf8')) as WorkflowFile, testCase.standIns);
			runs.push([testCase, workflow]);
			await writeFile(join(workflowDir, `${workflow.id}.json`), JSON.stringify(workflow));
		}
		await importWorkflows(workflowDir, env);

		let passed = 0;
		let failed = 0;
		for (const [testCase, workflow] of runs) {
			const executions: ExecutionResult[] = [];
			try {
				for (const [index, step] of (testCase.executions ?? [{}]).entries()) {
					step.prepare?.(double);
					if (step.edit !== undefined) await reimport(workflow, step.edit, join(scratch, 'edited', `${workflow.id}-${index}`), env);
					const before = double.requests.length;
					const execution = await executeWorkflow(workflow.id, env, EXECUTE_LIMIT_MS, join(scratch, 'execute-output.json'));
					const output = `${execution.stdout}\n${execution.stderr}`;
					const { runData, status } = parseExecution(execution.stdout);
					executions.push({ exitCode: exitCodeOf(execution, status), runData, log: output, requests: double.requests.slice(before) });
					if (execution.timedOut) throw new Error(`n8n execute timed out after ${EXECUTE_LIMIT_MS / 1000} s`);
				}
				await testCase.check({
					...executions[executions.length - 1],
					executions,
					double,
					processedData: async () => await processedDataRows(scratch, workflow.id),
				});
				passed += 1;
				log(`ok    ${testCase.name}`);
			} catch (error) {
				failed += 1;
				// The run data is long and printed whole; the lines around it say what went wrong.
				const printed = tail((executions.at(-1)?.log ?? '').replace(/^\{$[\s\S]*?^\}$/m, '(run data)'), 40);
				log(`FAIL  ${testCase.name}\n${String(error instanceof Error ? error.message : error)}\n--- n8n output ---\n${printed}`);
			}
		}
		if (crashedOnExit > 0) log(`n8n execute crashed (SIGSEGV) on its way out after printing a finished execution ${crashedOnExit} time(s); judged by what it printed`);
		return { passed, failed };
	} finally {
		await double.close();
		stopAllChildren();
		if (process.argv.includes('--keep')) log(`kept the n8n user folder: ${scratch}`);
		else await removeFolder(scratch);
	}
}

function runHere(): void {
	installExitHooks();
	const watchdog = setTimeout(() => {
		console.error(`The end-to-end run took longer than ${OVERALL_LIMIT_MS / 60_000} minutes; stopping.`);
		stopAllChildren('SIGKILL');
		process.exit(1);
	}, OVERALL_LIMIT_MS);
	watchdog.unref();
	main().then(
		({ passed, failed }) => {
			log(`${passed} passed, ${failed} failed`);
			process.exit(failed === 0 && passed > 0 ? 0 : 1);
		},
		(error) => {
			console.error(error instanceof Error ? error.stack : error);
			console.log('0 passed, 1 failed');
			process.exit(1);
		},
	);
}

if (require.main === module) {
	onN8nNode(process.argv.slice(2), runHere);
}
