/**
 * Progress of a long `npm install`, read from npm's own `--loglevel=http` lines: how many
 * packages were looked up and unpacked, the last one, and the time so far. On a terminal one
 * line is rewritten every second; in a log a line is written every 15 seconds.
 */

export interface InstallProgress {
	/** Feeds npm's output (stdout or stderr) as it arrives. */
	read(chunk: string): void;
	/** Stops the ticker and prints the final line. */
	finish(outcome: string): void;
}

/** `npm http fetch GET 200 <registry>/<name>` (a look-up) or `npm http cache <name>@<tarball>` (an unpack). */
export function packageOfNpmLine(line: string): { name: string; kind: 'lookup' | 'unpack' } | undefined {
	const cached = /^npm http cache (@?[^@\s]+)@\S+\.tgz\b/.exec(line);
	if (cached !== null) return { name: cached[1], kind: 'unpack' };
	const fetched = /^npm http fetch GET 2\d\d (\S+)/.exec(line);
	if (fetched === null) return undefined;
	let path: string;
	try {
		path = decodeURIComponent(new URL(fetched[1]).pathname).replace(/^\//, '');
	} catch {
		return undefined;
	}
	const tarball = path.indexOf('/-/');
	return tarball === -1 ? { name: path, kind: 'lookup' } : { name: path.slice(0, tarball), kind: 'unpack' };
}

export function formatElapsed(ms: number): string {
	const seconds = Math.floor(ms / 1000);
	return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

export function startInstallProgress(what: string, out: NodeJS.WriteStream = process.stdout): InstallProgress {
	const started = Date.now();
	const lookedUp = new Set<string>();
	const unpacked = new Set<string>();
	let last = '';
	let pending = '';
	const interactive = out.isTTY === true;

	const status = () => {
		const phase = unpacked.size === 0 ? `looked up ${lookedUp.size} packages` : `${unpacked.size} of ${lookedUp.size} packages unpacked`;
		return `  ${formatElapsed(Date.now() - started)}  ${what}: ${phase}${last === '' ? '' : ` (last: ${last})`}`;
	};
	const show = () => (interactive ? out.write(`\r\x1b[K${status()}`) : out.write(`${status()}\n`));
	const ticker = setInterval(show, interactive ? 1_000 : 15_000);
	ticker.unref();

	return {
		read(chunk) {
			const lines = (pending + chunk).split('\n');
			pending = lines.pop() ?? '';
			for (const line of lines) {
				const found = packageOfNpmLine(line.trim());
				if (found === undefined) continue;
				(found.kind === 'lookup' ? lookedUp : unpacked).add(found.name);
				last = found.name;
			}
		},
		finish(outcome) {
			clearInterval(ticker);
			out.write(`${interactive ? '\r\x1b[K' : ''}  ${formatElapsed(Date.now() - started)}  ${what}: ${outcome}\n`);
		},
	};
}
