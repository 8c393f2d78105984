/**
 * Runs before `npm publish` (prepublishOnly) and first in the publish workflow: a publish happens
 * only from that workflow, with a provenance statement, once the maintainer's metadata is set.
 *
 * Usage: node .build-test/scripts/publishGuard.js [--metadata-only]
 */
import { missingPublishFields, readProjectManifest } from './publishMetadata';

function problems(metadataOnly: boolean): string[] {
	const manifest = readProjectManifest();
	const found = missingPublishFields(manifest).map((field) => `package.json has no true ${field}`);
	if (metadataOnly) return found;
	if (process.env.GITHUB_ACTIONS !== 'true' || !process.env.GITHUB_WORKFLOW_REF?.includes('/.github/workflows/publish.yml@')) {
		found.push('publishing happens only in the publish workflow (.github/workflows/publish.yml), on a version tag');
	} else if (process.env.GITHUB_REF_NAME !== `v${manifest.version}`) {
		found.push(`the tag ${process.env.GITHUB_REF_NAME} is not v${manifest.version}, the version in package.json`);
	}
	if (process.env.npm_config_provenance !== 'true') found.push('npm publish needs --provenance');
	return found;
}

const found = problems(process.argv.includes('--metadata-only'));
if (found.length > 0) {
	console.error(`Not publishing:\n${found.map((problem) => `- ${problem}`).join('\n')}\nSee docs/publishing.md.`);
	process.exit(1);
}
console.log('Ready to publish.');
