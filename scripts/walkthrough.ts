/**
 * A walk through the editor of `npm start` as a new user takes it, in headless Chromium: the
 * nodes panel, adding the trigger and every action, each operation's panel, the canvas, the
 * credential test with a good key, a wrong key and a Base URL without the version prefix, the
 * examples, a Schedule run's output, a Dry Run and a skipped duplicate. Every step saves a
 * screenshot; the README pictures (docs/images) are among them. Not part of CI; needs Debian's
 * `chromium`.
 *
 * Usage, while `npm start` runs: node .build-test/scripts/walkthrough.js [--port N] [--out <folder>]
 * (default folder .walkthrough/, ignored by git).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import type { Page } from 'playwright-core';
import { chromium } from 'playwright-core';

import { DEFAULT_API_KEY } from '../test/double/server';
import { editorPort, editorUrl, optionValue, SANDBOX_OWNER } from './editor';
import { projectRoot } from './n8n';
import { SANDBOX_CREDENTIAL_ID } from './sandbox';
import { credentialSteps, type Walk } from './walkthroughCredential';
import { safeSendingSteps } from './walkthroughSafeSending';

const CHROMIUM_FLAGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
];

/** The actions as the nodes panel lists them, each with what to show in its panel. */
const ACTIONS: Array<{ action: string; file: string; show?: (page: Page) => Promise<void> }> = [
	{ action: 'Create transactions', file: 'transaction-create' },
	{ action: 'Rename a custom contact field', file: 'contact-field-rename' },
	{ action: 'Start the message size check of a mailing', file: 'mailing-start-message-size-check' },
	{ action: 'Start the bounce check of a mailing', file: 'mailing-start-bounce-check' },
	{ action: 'Get the test send out result of a mailing', file: 'mailing-get-test-send-out-result' },
	{
		action: 'Schedule a mailing',
		file: 'mailing-schedule',
		show: async (page) => {
			await chooseOption(page, 'Dispatch Option', 'By Hour (Response-Based)');
			// The label's info icon shows the description.
			const label = page.locator('[data-test-id="input-label"]').filter({ hasText: 'Waves Grouped Together' });
			await label.scrollIntoViewIfNeeded();
			await label.hover();
			await label.locator('svg').first().hover();
		},
	},
	{
		action: 'Get block status changes',
		file: 'report-get-blocks',
		show: async (page) => await page.locator('[data-test-id="collection-parameter-add"]').click(),
	},
	{
		action: 'Count block status changes',
		file: 'report-count-blocks',
		show: async (page) => await page.locator('[data-test-id="collection-parameter-add"]').click(),
	},
	{ action: 'Get unsubscription reasons', file: 'report-get-unsubscription-reasons' },
];

const EXAMPLES = [
	{ id: 'mpExampleOrder01', file: 'example-shop-order.png' },
	{ id: 'mpExampleWooCom1', file: 'example-woocommerce.png' },
	{ id: 'mpExampleBlocks1', file: 'example-daily-blocks.png' },
	{ id: 'mpExampleMailng1', file: 'example-mailing.png' },
	{ id: 'mpExampleTrigr01', file: 'example-trigger.png' },
	{ id: 'mpExampleOnce001', file: 'example-shop-order-queue-mode.png' },
];

/** Send Order Confirmation in examples/woocommerce-order-mapped-fields.json, and where to scroll its panel to. */
const WOOCOMMERCE_NODE = '9e1d4c7a-2b5f-5a8e-b3c6-4d7e8f9a0b13';
const TRANSACTION_PANELS = [
	{ scrollTo: 'Content Mode', file: 'transaction-mapped-fields.png', height: 1200 },
	{ scrollTo: 'shipping.method', file: 'transaction-type-conversion.png', height: 1000 },
];

async function chooseOption(page: Page, label: string, option: string): Promise<void> {
	const name = label.replace(/ (\w)/g, (_, letter: string) => letter.toUpperCase()).replace(/^\w/, (letter) => letter.toLowerCase());
	await page.locator(`[data-test-id="parameter-input-${name}"]`).click();
	await page.getByRole('option', { name: option }).click();
}

/** n8n saves a new workflow at once; the walk's own is archived and deleted again, as the editor's REST calls do it. */
async function deleteWorkflow(page: Page, id: string): Promise<void> {
	// Runs in the page (a string, as these scripts are compiled without the DOM's types).
	const status = await page.evaluate<number[]>(`(async () => {
		const headers = { 'browser-id': localStorage.getItem('n8n-browserId') ?? '' };
		const archived = await fetch('/rest/workflows/${id}/archive', { method: 'POST', headers });
		const deleted = await fetch('/rest/workflows/${id}', { method: 'DELETE', headers });
		return [archived.status, deleted.status];
	})()`);
	if (status.some((code) => code !== 200)) throw new Error(`Deleting the walk's workflow ${id} answered ${status.join(', ')}`);
}

/** Tab opens the nodes panel; the search finds the package and Enter opens its entry. */
async function openPackageInNodesPanel(page: Page): Promise<void> {
	// n8n 2.8.4 opens the nodes panel with Tab, 2.41.1 with N.
	const search = page.getByPlaceholder('Search nodes...');
	await page.keyboard.press('Tab');
	if (!(await search.isVisible())) await page.keyboard.press('n');
	await search.fill('Mailing Platform');
	await page.getByText('Mailing Platform', { exact: true }).first().waitFor();
	await search.press('Enter');
	await page.getByText('Node details', { exact: true }).waitFor();
}

async function closeNodePanel(page: Page): Promise<void> {
	await page.locator('[data-test-id="ndv-close-button"]').click();
	await page.locator('[data-test-id="ndv"]').waitFor({ state: 'hidden' });
}

async function walk(page: Page, base: string, save: Walk['save']): Promise<void> {
	const walkContext: Walk = { page, base, save };

	// A new workflow: the first step is a trigger, so the panel lists the package's trigger.
	await page.goto(`${base}/workflow/new`);
	await page.getByText('Add first step').waitFor();
	await page.waitForTimeout(1_000);
	await openPackageInNodesPanel(page);
	await save('01-nodes-panel-trigger-first');
	await page.getByText('On block status changed', { exact: true }).click();
	await page.locator('[data-test-id="ndv"]').waitFor();
	await save('02-trigger-panel');
	await closeNodePanel(page);

	// Every action, added after the last node as a user would, with its panel.
	let previous = 'Mailing Platform Trigger';
	for (const [index, { action, file, show }] of ACTIONS.entries()) {
		await page.locator(`[data-test-id="canvas-node"][data-node-name="${previous}"]`).click();
		previous = action;
		await openPackageInNodesPanel(page);
		if (index === 0) await save('03-nodes-panel-actions', { readme: 'node-in-editor.png', height: 1080 });
		await page.getByText(action, { exact: true }).click();
		await page.locator('[data-test-id="ndv"]').waitFor();
		await page.waitForTimeout(500);
		await show?.(page);
		await save(`${String(index + 4).padStart(2, '0')}-${file}`);
		await closeNodePanel(page);
	}
	await page.setViewportSize({ width: 2200, height: 700 });
	await page.locator('[data-test-id="tidy-up-button"]').click();
	await page.waitForTimeout(500);
	await page.locator('[data-test-id="zoom-to-fit"]').click();
	await save('13-canvas-subtitles', { readme: 'canvas-subtitles.png' });
	await page.setViewportSize({ width: 1440, height: 900 });
	await deleteWorkflow(page, new URL(page.url()).pathname.split('/').pop() ?? '');

	await credentialSteps(walkContext, SANDBOX_CREDENTIAL_ID, DEFAULT_API_KEY);

	for (const { id, file } of EXAMPLES) {
		await page.goto(`${base}/workflow/${id}`);
		await page.locator('[data-test-id="canvas-node"]').first().waitFor();
		await page.waitForTimeout(1_500);
		await save(`17-${file.replace(/\.png$/, '')}`, { readme: file });
	}

	// Transaction › Create with mapped fields, as the WooCommerce example sets it up.
	for (const { scrollTo, file, height } of TRANSACTION_PANELS) {
		await page.setViewportSize({ width: 1440, height });
		await page.goto(`${base}/workflow/mpExampleWooCom1/${WOOCOMMERCE_NODE}`);
		await page.locator('[data-test-id="ndv"]').getByText('order.id', { exact: true }).first().waitFor();
		await page.waitForTimeout(1_000);
		await page
			.getByText(scrollTo, { exact: true })
			.filter({ visible: true })
			// The parameter's label, which comes after any mention in a notice above it.
			.last()
			.evaluate((element) => element.scrollIntoView({ block: 'start' }));
		await save(`17-${file.replace(/\.png$/, '')}`, { readme: file });
	}
	await page.setViewportSize({ width: 1440, height: 900 });

	// The mailing example run: the Schedule output as JSON.
	await page.goto(`${base}/workflow/mpExampleMailng1`);
	await page.locator('[data-test-id="execute-workflow-button"]').click();
	await page.getByText('Workflow executed successfully').waitFor({ timeout: 60_000 });
	await page.locator('[data-test-id="canvas-node"][data-node-name="Schedule Mailing"]').dblclick();
	await page.locator('[data-test-id="ndv"]').waitFor();
	// The output's JSON view: the rightmost of the two (input, output) JSON switches.
	await page.locator('[data-test-id="ndv"]').getByText('JSON', { exact: true }).last().click();
	await save('18-schedule-output', { readme: 'schedule-output.png' });

	await safeSendingSteps(walkContext);
}

function outFolder(argv: string[] = process.argv.slice(2)): string {
	const given = optionValue(argv, 'out');
	return given === undefined || given === '' ? join(projectRoot, '.walkthrough') : resolve(given);
}

async function main(): Promise<void> {
	const port = editorPort();
	const base = editorUrl(port);
	const out = outFolder();
	await mkdir(out, { recursive: true });
	const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_FLAGS });
	try {
		const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
		page.setDefaultTimeout(20_000);
		await page.goto(`${base}/signin`);
		await page.locator('input[type=email]').fill(SANDBOX_OWNER.email);
		await page.locator('input[type=password]').fill(SANDBOX_OWNER.password);
		await page.keyboard.press('Enter');
		await page.waitForURL(/\/home\//);

		const save: Walk['save'] = async (name, options = {}) => {
			if (options.height !== undefined) await page.setViewportSize({ width: 1440, height: options.height });
			await page.waitForTimeout(700);
			const png = await page.screenshot({ clip: options.clip });
			await writeFile(join(out, `${name}.png`), png);
			if (options.readme !== undefined) await writeFile(join(projectRoot, 'docs', 'images', options.readme), png);
			if (options.height !== undefined) await page.setViewportSize({ width: 1440, height: 900 });
			console.log(`${join(out, `${name}.png`)}${options.readme === undefined ? '' : ` (README: docs/images/${options.readme})`}`);
		};
		try {
			await walk(page, base, save);
		} catch (error) {
			await page.screenshot({ path: join(out, 'failed-here.png') });
			throw error;
		}
	} finally {
		await browser.close();
	}
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
