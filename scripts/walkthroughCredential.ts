import type { Page } from 'playwright-core';

type Clip = { x: number; y: number; width: number; height: number };

export interface Walk {
	page: Page;
	/** The editor's address, e.g. http://localhost:5678. */
	base: string;
	/** Saves a screenshot (of `clip` only, if given) under `name`; `readme` also writes it as that README picture. */
	save(name: string, options?: { readme?: string; height?: number; clip?: Clip }): Promise<void>;
}

const OK = 'Connection tested successfully';

const dialog = (page: Page) => page.locator('[data-test-id="credential-edit-dialog"]');

/** Fills Base URL and API Key, saves (n8n then runs the credential test) and waits for `verdict`. */
async function saveAndTest(page: Page, baseUrl: string, apiKey: string, verdict: string | RegExp): Promise<void> {
	const [urlField, keyField] = await dialog(page).locator('[data-test-id="parameter-input-field"]').all();
	await urlField.fill(baseUrl);
	await keyField.fill(apiKey);
	await page.getByRole('button', { name: 'Save', exact: true }).click();
	const shown = page.getByText(verdict).first();
	// A failed test's message is under "More details" until that was opened once.
	const moreDetails = dialog(page).getByText('More details', { exact: true });
	await shown.or(moreDetails).first().waitFor({ timeout: 30_000 });
	if (!(await shown.isVisible())) await moreDetails.click();
	await shown.waitFor();
}

/**
 * The credential test three times: with the sandbox's key, with a wrong key, and with the Base
 * URL cut before the version prefix. The credential is put back as it was, whatever happens.
 */
export async function credentialSteps({ page, base, save }: Walk, credentialId: string, goodKey: string): Promise<void> {
	await page.goto(`${base}/home/credentials/${credentialId}`);
	const urlField = dialog(page).locator('[data-test-id="parameter-input-field"]').first();
	await urlField.waitFor();
	// Tolerates a run that stopped half-way and left the prefix off.
	const goodUrl = (await urlField.inputValue()).replace(/\/+$/, '').replace(/(\/1\.0)?$/, '/1.0');
	try {
		await saveAndTest(page, goodUrl, goodKey, OK);
		await save('14-credential-test-good-key', { readme: 'credential-test-ok.png' });
		// n8n 2.8.4 shows its own words for a 401 (see the credential's test rules).
		await saveAndTest(page, goodUrl, 'not-the-key', /The API key was not accepted|Authorization failed/);
		await save('15-credential-test-wrong-key', { readme: 'credential-test-wrong-key.png' });
		await saveAndTest(page, goodUrl.replace(/\/1\.0$/, ''), goodKey, /the Base URL must end with the version prefix/i);
		await save('16-credential-test-no-version-prefix', { readme: 'credential-test-no-version-prefix.png' });
	} finally {
		await saveAndTest(page, goodUrl, goodKey, OK);
	}
	await page.keyboard.press('Escape');
}
