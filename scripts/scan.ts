/**
 * n8n's community-package scan, offline. @n8n/scan-community-package downloads a published
 * package and its attested source; its module exports the analysis, which runs here on this
 * project's sources and on the tarball `npm pack` makes, with the scanner's own configuration.
 *
 * Usage: npm run scan (builds first). Exits 1 on any finding.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { analyzePackage, SOURCE_FILE_PATTERNS } from '@n8n/scan-community-package/scanner/scanner.mjs';

import { makeUserFolder, packProject, projectRoot, removeFolder } from './n8n';
import { runOrThrow } from './processes';
import { missingPublishFields, readProjectManifest } from './publishMetadata';

/** What the scanner lints in the tarball: compiled code and the published package.json. */
const PACKAGE_FILE_PATTERNS = ['**/*.js', 'package.json'];

/**
 * The scanner requires an author e-mail, which only the maintainer can give (docs/publishing.md).
 * Until then that one finding is reported but does not fail; the publish workflow runs the scan
 * after the metadata check, when no finding is let through.
 */
const AWAITING_MAINTAINER_RULE = '@n8n/community-nodes/valid-author';

/** Rule ids of the errors in the scanner's "stylish" report. */
function errorRules(details: string): string[] {
	return [...details.matchAll(/^\s+\d+:\d+\s+error\s+.*\s(\S+)$/gm)].map((match) => match[1]);
}

function authorAwaited(): boolean {
	return missingPublishFields(readProjectManifest()).some((field) => field.startsWith('author:'));
}

async function scan(label: string, folder: string, patterns: string[]): Promise<boolean> {
	const result = await analyzePackage(folder, patterns);
	if (result.passed) {
		console.log(`${label}: 0 findings`);
		return true;
	}
	console.log(`${label}: ${result.message ?? 'failed'}\n${result.details ?? ''}`);
	const rules = errorRules(result.details ?? '');
	if (rules.length > 0 && rules.every((rule) => rule === AWAITING_MAINTAINER_RULE) && authorAwaited()) {
		console.log(`${label}: no finding besides the author e-mail, which the maintainer sets before publishing (docs/publishing.md)`);
		return true;
	}
	return false;
}

async function main(): Promise<boolean> {
	const scratch = await makeUserFolder('n8n-scan-');
	try {
		const tarball = await packProject(scratch);
		const unpacked = join(scratch, 'package');
		mkdirSync(unpacked);
		await runOrThrow('tar', ['-xzf', tarball, '-C', unpacked, '--strip-components=1'], { timeoutMs: 60_000 });
		const sources = await scan(`Sources (${SOURCE_FILE_PATTERNS.join(', ')})`, projectRoot, SOURCE_FILE_PATTERNS);
		const packed = await scan(`Packed package (${PACKAGE_FILE_PATTERNS.join(', ')})`, unpacked, PACKAGE_FILE_PATTERNS);
		return sources && packed;
	} finally {
		await removeFolder(scratch);
	}
}

main().then(
	(clean) => process.exit(clean ? 0 : 1),
	(error) => {
		console.error(error instanceof Error ? error.stack : error);
		process.exit(1);
	},
);
