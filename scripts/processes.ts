import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** Every child still running; each is the leader of its own process group so its children go too. */
const running = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
	if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		// The group is already gone.
	}
}

/** Stops every child this process started; safe to call more than once. */
export function stopAllChildren(signal: NodeJS.Signals = 'SIGTERM'): void {
	for (const child of running) killGroup(child, signal);
}

let exitHooksInstalled = false;

/** Children must never outlive the script, whether it ends normally, by Ctrl-C or by an error. */
export function installExitHooks(onSignal?: () => Promise<void>): void {
	if (exitHooksInstalled) return;
	exitHooksInstalled = true;
	process.on('exit', () => stopAllChildren('SIGKILL'));
	for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
		process.once(signal, () => {
			const finish = () => {
				stopAllChildren('SIGKILL');
				process.exit(130);
			};
			if (onSignal === undefined) return finish();
			const forced = setTimeout(finish, 10_000);
			forced.unref();
			void onSignal().finally(finish);
		});
	}
}

export interface RunOptions {
	cwd?: string;
	env?: NodeJS.ProcessEnv;
	timeoutMs: number;
	/** Copies the child's output to this process's output as it arrives. */
	echo?: boolean;
	/** Called with each chunk of the child's output (stdout and stderr) as it arrives. */
	onOutput?: (chunk: string) => void;
	/**
	 * The child writes its stdout into this file instead of a pipe, read when it has ended: a
	 * program that exits right after a large write (n8n execute) can lose its tail on a pipe.
	 */
	stdoutFile?: string;
}

export interface RunResult {
	code: number | null;
	/** The signal that ended the child, when one did (then `code` is null). */
	signal: NodeJS.Signals | null;
	stdout: string;
	stderr: string;
	timedOut: boolean;
}

/** Runs a command to its end, killing its whole process group when it takes longer than allowed. */
export async function run(command: string, args: string[], options: RunOptions): Promise<RunResult> {
	const child = spawnTracked(command, args, options);
	let stdout = '';
	let stderr = '';
	child.stdout?.on('data', (chunk: Buffer) => {
		stdout += chunk.toString();
		options.onOutput?.(chunk.toString());
		if (options.echo) process.stdout.write(chunk);
	});
	child.stderr?.on('data', (chunk: Buffer) => {
		stderr += chunk.toString();
		options.onOutput?.(chunk.toString());
		if (options.echo) process.stderr.write(chunk);
	});
	let timedOut = false;
	const timer = setTimeout(() => {
		timedOut = true;
		killGroup(child, 'SIGKILL');
	}, options.timeoutMs);
	const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
		child.once('close', (exitCode, exitSignal) => resolve([exitCode, exitSignal]));
		child.once('error', (error) => {
			stderr += String(error);
			resolve([null, null]);
		});
	});
	clearTimeout(timer);
	if (options.stdoutFile !== undefined) stdout = await readFile(options.stdoutFile, 'utf8');
	return { code, signal, stdout, stderr, timedOut };
}

/** Like `run`, but throws with the command's output when it fails or times out. */
export async function runOrThrow(command: string, args: string[], options: RunOptions): Promise<RunResult> {
	const result = await run(command, args, options);
	if (result.code !== 0 || result.timedOut) {
		const why = result.timedOut ? `timed out after ${options.timeoutMs / 1000} s` : `exited with ${result.code}`;
		throw new Error(`${[command, ...args].join(' ')} ${why}\n${tail(result.stdout)}\n${tail(result.stderr)}`);
	}
	return result;
}

/** Starts a long-running child (a server); it is stopped with the script or by `stop`. */
export function startBackground(command: string, args: string[], options: Omit<RunOptions, 'timeoutMs'>) {
	const child = spawnTracked(command, args, options);
	let output = '';
	const collect = (chunk: Buffer) => {
		output = (output + chunk.toString()).slice(-20_000);
		if (options.echo) process.stdout.write(chunk);
	};
	child.stdout?.on('data', collect);
	child.stderr?.on('data', collect);
	const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
	return {
		child,
		exited,
		recentOutput: () => output,
		async stop(): Promise<void> {
			killGroup(child, 'SIGTERM');
			const forced = setTimeout(() => killGroup(child, 'SIGKILL'), 10_000);
			await exited;
			clearTimeout(forced);
		},
	};
}

export type BackgroundProcess = ReturnType<typeof startBackground>;

/** Process groups of `started` that still have a member (each child leads its own group), checked with signal 0. */
export function groupsStillRunning(started: BackgroundProcess[]): number[] {
	return started
		.map((server) => server.child.pid)
		.filter((pid): pid is number => pid !== undefined)
		.filter((pid) => {
			try {
				process.kill(-pid, 0);
				return true;
			} catch {
				return false;
			}
		});
}

/** Waits until `ready` says so; gives up when `server` exits or after `limitMs`, showing its output. */
export async function waitUntilReady(what: string, server: BackgroundProcess, ready: () => Promise<boolean>, limitMs: number): Promise<void> {
	const deadline = Date.now() + limitMs;
	while (Date.now() < deadline && server.child.exitCode === null && server.child.signalCode === null) {
		if (await ready()) return;
		await sleep(250);
	}
	throw new Error(`${what} did not become ready:\n${server.recentOutput().slice(-4000)}`);
}

function spawnTracked(command: string, args: string[], options: Omit<RunOptions, 'timeoutMs'>): ChildProcess {
	const stdoutFile = options.stdoutFile === undefined ? undefined : openSync(options.stdoutFile, 'w');
	const child = spawn(command, args, {
		cwd: options.cwd,
		env: options.env ?? process.env,
		stdio: ['ignore', stdoutFile ?? 'pipe', 'pipe'],
		detached: true,
	});
	if (stdoutFile !== undefined) closeSync(stdoutFile);
	running.add(child);
	child.once('close', () => running.delete(child));
	return child;
}

export function tail(text: string, lines = 30): string {
	return text.trimEnd().split('\n').slice(-lines).join('\n');
}
