import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { projectRoot } from '../../scripts/n8n';

/**
 * The Deduplication Key expression README.md's Exactly Once section gives for Create behind n8n's
 * Webhook node, so that the real-n8n runs use what a user copies from it.
 */
export function readmeKeyExpression(): string {
	const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
	const section = readme.slice(readme.indexOf('## Exactly Once'));
	const expression = /`(\{\{ \$json\.body\.[^`]+ \}\})`/.exec(section)?.[1];
	if (expression === undefined) throw new Error("README.md's Exactly Once section gives no key expression on $json.body");
	return expression;
}
