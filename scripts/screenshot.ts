/**
 * Takes the README pictures from the editor that `npm start` runs, with headless Chromium driven
 * over the DevTools protocol. Not part of CI; needs a `chromium` binary on the PATH.
 *
 * Usage (while `npm start` runs): node --experimental-websocket .build-test/scripts/screenshot.js
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { editorPort, editorUrl, loginCookie } from './editor';
import { projectRoot } from './n8n';

/** A key press, typed text or a click on the element showing exactly `click`, as a user would do it. */
type Step = { key: 'Tab' | 'Enter' } | { text: string } | { click: string };

interface Shot {
	file: string;
	/** Path in the editor, e.g. /workflow/<id> or /workflow/<id>/<node id> to open a node's panel. */
	path: string;
	steps?: Step[];
	/** Viewport height in pixels (default 860). */
	height?: number;
}

const KEY_CODES = { Tab: 9, Enter: 13 } as const;

const shots: Shot[] = [
	// Tab opens the nodes panel; the search finds the node, Enter shows its actions, and a click
	// opens the collapsed trigger section below them (hence the taller viewport).
	{
		file: 'node-in-editor.png',
		path: '/workflow/mpExampleBlocks1',
		steps: [{ key: 'Tab' }, { text: 'Mailing Platform' }, { key: 'Enter' }, { click: 'Triggers (1)' }],
		height: 1080,
	},
	{ file: 'example-shop-order.png', path: '/workflow/mpExampleOrder01' },
	{ file: 'example-daily-blocks.png', path: '/workflow/mpExampleBlocks1' },
	{ file: 'example-mailing.png', path: '/workflow/mpExampleMailng1' },
	{ file: 'example-trigger.png', path: '/workflow/mpExampleTrigr01' },
];

/** A minimal DevTools-protocol client over one WebSocket. */
class DevTools {
	private nextId = 1;

	private readonly pending = new Map<number, (message: { result?: unknown; error?: unknown }) => void>();

	private constructor(private readonly socket: WebSocket) {
		socket.addEventListener('message', (event) => {
			const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown };
			if (message.id !== undefined) this.pending.get(message.id)?.(message);
		});
	}

	static async connect(url: string): Promise<DevTools> {
		const socket = new WebSocket(url);
		await new Promise((resolve, reject) => {
			socket.addEventListener('open', resolve, { once: true });
			socket.addEventListener('error', reject, { once: true });
		});
		return new DevTools(socket);
	}

	async send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
		const id = this.nextId++;
		const answer = new Promise<{ result?: unknown; error?: unknown }>((resolve) => this.pending.set(id, resolve));
		this.socket.send(JSON.stringify({ id, method, params }));
		const message = await answer;
		if (message.error !== undefined) throw new Error(`${method}: ${JSON.stringify(message.error)}`);
		return message.result as T;
	}

	close(): void {
		this.socket.close();
	}
}

async function main(): Promise<void> {
	const port = editorPort();
	const cookie = await loginCookie(port);
	const profile = await mkdtemp(join(tmpdir(), 'chromium-shots-'));
	const browser = spawn(
		'chromium',
		[
			'--headless',
			'--no-sandbox',
			'--disable-gpu',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			`--user-data-dir=${profile}`,
			'--remote-debugging-port=0',
			'about:blank',
		],
		{ stdio: ['ignore', 'ignore', 'pipe'] },
	);
	try {
		const browserUrl = await new Promise<string>((resolve, reject) => {
			let output = '';
			const timer = setTimeout(() => reject(new Error(`Chromium did not start:\n${output}`)), 30_000);
			browser.stderr.on('data', (chunk: Buffer) => {
				output += chunk.toString();
				const match = /DevTools listening on (ws:\/\/\S+)/.exec(output);
				if (match !== null) {
					clearTimeout(timer);
					resolve(match[1]);
				}
			});
		});
		const devtoolsOrigin = new URL(browserUrl).host;
		const browserSession = await DevTools.connect(browserUrl);
		const { targetId } = await browserSession.send<{ targetId: string }>('Target.createTarget', { url: 'about:blank' });
		const page = await DevTools.connect(`ws://${devtoolsOrigin}/devtools/page/${targetId}`);
		await page.send('Network.enable');
		await page.send('Network.setCookie', { name: cookie.name, value: cookie.value, domain: 'localhost', path: '/' });
		for (const shot of shots) {
			await page.send('Emulation.setDeviceMetricsOverride', {
				width: 1440,
				height: shot.height ?? 860,
				deviceScaleFactor: 1,
				mobile: false,
			});
			await page.send('Page.navigate', { url: `${editorUrl(port)}${shot.path}` });
			await sleep(8_000);
			for (const step of shot.steps ?? []) {
				if ('text' in step) {
					await page.send('Input.insertText', { text: step.text });
				} else if ('click' in step) {
					const { result } = await page.send<{ result: { value?: { x: number; y: number } } }>('Runtime.evaluate', {
						expression: `(() => {
							const element = [...document.querySelectorAll('body *')]
								.reverse()
								.find((candidate) => candidate.textContent.trim() === ${JSON.stringify(step.click)});
							if (element === undefined) return undefined;
							const box = element.getBoundingClientRect();
							return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
						})()`,
						returnByValue: true,
					});
					if (result.value === undefined) throw new Error(`${shot.file}: nothing shows "${step.click}"`);
					for (const type of ['mousePressed', 'mouseReleased']) {
						await page.send('Input.dispatchMouseEvent', { type, ...result.value, button: 'left', clickCount: 1 });
					}
				} else {
					const key = { key: step.key, code: step.key, windowsVirtualKeyCode: KEY_CODES[step.key] };
					await page.send('Input.dispatchKeyEvent', { type: 'keyDown', ...key });
					await page.send('Input.dispatchKeyEvent', { type: 'keyUp', ...key });
				}
				await sleep(1_500);
			}
			const { data } = await page.send<{ data: string }>('Page.captureScreenshot', { format: 'png' });
			await writeFile(join(projectRoot, 'docs', 'images', shot.file), Buffer.from(data, 'base64'));
			console.log(`docs/images/${shot.file}`);
		}
		page.close();
		browserSession.close();
	} finally {
		browser.kill('SIGKILL');
		await rm(profile, { recursive: true, force: true });
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
