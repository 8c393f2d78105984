import type { Page } from 'playwright-core';

import type { Walk } from './walkthroughCredential';

/** The WooCommerce example ships with Dry Run on and the order ID as Deduplication Key. */
const WORKFLOW = 'mpExampleWooCom1';
const NODE = 'Send Order Confirmation';
const DRY_RUN_SUBTITLE = 'Create Transaction (Dry Run)';

const node = (page: Page) => page.locator(`[data-test-id="canvas-node"][data-node-name="${NODE}"]`);
const panel = (page: Page) => page.locator('[data-test-id="ndv"]');

/** Execute workflow, as the button under the canvas does it; its toast is closed so that the next run's can be told apart. */
async function executeWorkflow(page: Page): Promise<void> {
	await page.locator('[data-test-id="execute-workflow-button"]').click();
	const toast = page.locator('.el-notification').filter({ hasText: 'Workflow executed successfully' });
	await toast.waitFor({ timeout: 60_000 });
	await toast.locator('.el-notification__closeBtn').click();
	await toast.waitFor({ state: 'hidden' });
}

/** Opens the node's panel with its output as JSON. */
async function openOutput(page: Page): Promise<void> {
	await node(page).dblclick();
	await panel(page).waitFor();
	await page.locator('[data-test-id="output-panel"] [data-test-id="radio-button-json"]').click();
}

async function closePanel(page: Page): Promise<void> {
	await page.locator('[data-test-id="ndv-close-button"]').click();
	await panel(page).waitFor({ state: 'hidden' });
}

/** The panel's parameters and output side by side (the input is left out), `height` pixels from their top. */
async function parametersAndOutput(page: Page, height: number) {
	const parameters = await page.locator('[data-test-id="node-parameters"]').boundingBox();
	const output = await page.locator('[data-test-id="output-panel"]').boundingBox();
	const views = await page.locator('[data-test-id="output-panel"] [data-test-id="ndv-run-data-display-mode"]').boundingBox();
	if (parameters === null || output === null || views === null) throw new Error('The node panel is not open');
	// Up to the Schema/Table/JSON switch: the edit and pin buttons and the arrow to the next node say nothing here.
	return { x: parameters.x, y: output.y, width: views.x + views.width + 4 - parameters.x, height };
}

/** Turns Options › Dry Run to `on` in the node's panel, and waits until n8n has saved the workflow by itself. */
async function setDryRun(page: Page, on: boolean): Promise<void> {
	await node(page).dblclick();
	const toggle = panel(page).locator('[data-test-id="parameter-input-dryRun"] .el-switch');
	await toggle.scrollIntoViewIfNeeded();
	if ((await toggle.locator('input').getAttribute('aria-checked')) !== String(on)) {
		const saved = page.waitForResponse(
			(response) => response.request().method() === 'PATCH' && response.url().endsWith(`/rest/workflows/${WORKFLOW}`),
		);
		await toggle.click();
		if (!(await saved).ok()) throw new Error(`n8n did not save the workflow with Dry Run ${on ? 'on' : 'off'}`);
	}
	await closePanel(page);
	await node(page).getByText(on ? DRY_RUN_SUBTITLE : 'Create Transaction', { exact: true }).waitFor();
}

/**
 * Sending Safely in the WooCommerce example: a Dry Run's output (the canvas and the panel say
 * it is on), then with Dry Run off the same order twice, the second time skipped by its
 * Deduplication Key. In a fresh sandbox the first of the two is queued; in a later walk the key
 * is already known and both are skipped. Dry Run is turned on again afterwards.
 */
export async function safeSendingSteps({ page, base, save }: Walk): Promise<void> {
	await page.setViewportSize({ width: 1800, height: 1200 });
	await page.goto(`${base}/workflow/${WORKFLOW}`);
	await node(page).getByText(DRY_RUN_SUBTITLE, { exact: true }).waitFor();
	try {
		await executeWorkflow(page);
		await save('19-safe-sending-dry-run-canvas');
		await openOutput(page);
		await panel(page).getByText('Dry Run is on').waitFor();
		await panel(page).getByText('"transaction"').waitFor();
		await save('20-safe-sending-dry-run', { readme: 'sending-safely-dry-run.png', clip: await parametersAndOutput(page, 860) });
		await closePanel(page);

		await setDryRun(page, false);
		await executeWorkflow(page);
		await executeWorkflow(page);
		await openOutput(page);
		await panel(page).getByText('"skipped"').waitFor();
		// The options (the key, Dry Run off) next to the output: they are the panel's last
		// parameters, so a lower window brings them up beside it.
		await page.setViewportSize({ width: 1800, height: 660 });
		await page
			.locator('[data-test-id="node-parameters"] [data-test-id="collection-parameter-add"]')
			// 'end': the parameters can scroll that far, so the panel around them stays in place.
			.evaluate((button) => button.scrollIntoView({ block: 'end' }));
		await save('21-safe-sending-skipped', { readme: 'sending-safely-skipped.png', clip: await parametersAndOutput(page, 536) });
		await closePanel(page);
	} finally {
		if (await panel(page).isVisible()) await closePanel(page);
		await setDryRun(page, true);
		await page.setViewportSize({ width: 1440, height: 900 });
	}
}
