/**
 * Takes the README pictures from the editor that `npm start` runs, with headless Chromium driven
 * over the DevTools protocol. Not part of CI; needs a `chromium` binary on the PATH.
 *
 * Usage (while `npm start` runs): node --experimental-websocket .build-test/scripts/screenshot.js [file.png ...]
 * (with file names, only those pictures are taken).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { EDITOR_PORT, loginCookie } from './editor';
import { projectRoot } from './n8n';

/**
 * A key press, typed text or a click on the element showing exactly `click`, as a user would do
 * it; or scrolling the element showing exactly `scrollTo` to the top of its scrolling pane.
 */
type Step = { key: 'Tab' | 'Enter' } | { text: string } | { click: string } | { scrollTo: string };

interface Shot {
	file: string;
	/** Path in the editor, e.g. /workflow/<id> or /workflow/<id>/<node id> to open a node's panel. */
	path: string;
	steps?: Step[];
	/** Viewport height in pixels (default 860). */
	height?: number;
}

const KEY_CODES = { Tab: 9, Enter: 13 } as const;

/** Node id of Send Order Confirmation in examples/woocommerce-order-mapped-fields.json. */
const WOOCOMMERCE_NODE = '9e1d4c7a-2b5f-5a8e-b3c6-4d7e8f9a0b13';

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
	// The panel of Transaction › Create in the WooCommerce example: its mapped fields, then the
	// last of them above the Attempt To Convert Types switch and the extra fields.
	{
		file: 'transaction-mapped-fields.png',
		path: `/workflow/mpExampleWooCom1/${WOOCOMMERCE_NODE}`,
		// The input panel and the mapped fields render last: wait for both, then scroll.
		steps: [{ scrollTo: 'WooCommerce Order Webhook' }, { scrollTo: 'order.id' }, { scrollTo: 'Content Mode' }],
		height: 1200,
	},
	{
		file: 'transaction-type-conversion.png',
		path: `/workflow/mpExampleWooCom1/${WOOCOMMERCE_NODE}`,
		steps: [{ scrollTo: 'WooCommerce Order Webhook' }, { scrollTo: 'shipping.method' }],
		height: 1000,
	},
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
	const cookie = await loginCookie();
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
		const only = process.argv.slice(2);
		for (const shot of shots.filter((candidate) => only.length === 0 || only.includes(candidate.file))) {
			await page.send('Emulation.setDeviceMetricsOverride', {
				width: 1440,
				height: shot.height ?? 860,
				deviceScaleFactor: 1,
				mobile: false,
			});
			await page.send('Page.navigate', { url: `http://localhost:${EDITOR_PORT}${shot.path}` });
			await sleep(8_000);
			for (const step of shot.steps ?? []) {
				if ('text' in step) {
					await page.send('Input.insertText', { text: step.text });
				} else if ('scrollTo' in step) {
					// A node's panel can take a while to render on a busy machine: look for up to 30 s.
					let found = false;
					for (let attempt = 0; attempt < 30 && !found; attempt++) {
						if (attempt > 0) await sleep(1_000);
						const { result } = await page.send<{ result: { value?: boolean } }>('Runtime.evaluate', {
							expression: `(() => {
								const element = [...document.querySelectorAll('body *')]
									.reverse()
									.find((candidate) => candidate.textContent.trim() === ${JSON.stringify(step.scrollTo)});
								element?.scrollIntoView({ block: 'start' });
								return element !== undefined;
							})()`,
							returnByValue: true,
						});
						found = result.value === true;
					}
					if (!found) throw new Error(`${shot.file}: nothing shows "${step.scrollTo}"`);
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
		// Chromium may still be writing its cache just after the kill: retry briefly.
		await rm(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
