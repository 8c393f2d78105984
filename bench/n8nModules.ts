/**
 * Makes this process load n8n-workflow, n8n-core and n8n-nodes-base from the n8n release the
 * test tools install (`ensureN8nInstalled`), for this package's code as for n8n's own nodes: in
 * n8n a community node resolves n8n's own n8n-workflow, so the package's node and the HTTP
 * Request node then run on one n8n-core and one n8n-workflow, as they do there. Import this
 * module before anything that imports those packages.
 */
import Module, { createRequire } from 'node:module';
import { resolve, sep } from 'node:path';

import { n8nBin } from '../scripts/n8n';

const REDIRECTED = /^(n8n-workflow|n8n-core|n8n-nodes-base)(\/.*)?$/;

type Resolve = (request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]) => string;
const loader = Module as unknown as { _resolveFilename: Resolve };

/** Resolves a module as n8n's own `n8n` package does. */
export const requireFromN8n = createRequire(n8nBin());

/** The install's node_modules folder. */
const installModules = resolve(n8nBin(), '..', '..', '..');

const resolveAsUsual = loader._resolveFilename;
loader._resolveFilename = function (request, parent, ...rest) {
	// Inside the install everything resolves as it does for n8n; from this project, to n8n's copies.
	const fromInstall = parent?.filename?.startsWith(installModules + sep) === true;
	if (REDIRECTED.test(request) && !fromInstall) return requireFromN8n.resolve(request);
	return resolveAsUsual.call(this, request, parent, ...rest);
};

function versionOf(name: string): string {
	return (requireFromN8n(`${name}/package.json`) as { version: string }).version;
}

/**
 * The releases in use, after checking that this project and n8n-nodes-base (`nodeFile`, one of
 * its nodes) get the same n8n-workflow and n8n-core files.
 */
export function n8nModulesInUse(nodeFile: string): { n8n: string; n8nCore: string; n8nWorkflow: string } {
	const fromNodesBase = createRequire(nodeFile);
	for (const name of ['n8n-workflow', 'n8n-core']) {
		const ours = require.resolve(name);
		const theirs = fromNodesBase.resolve(name);
		if (ours !== theirs) throw new Error(`${name}: this project resolves ${ours}, n8n-nodes-base ${theirs}`);
		if (!ours.startsWith(installModules + sep)) throw new Error(`${name} resolves outside n8n's install: ${ours}`);
	}
	return { n8n: versionOf('n8n'), n8nCore: versionOf('n8n-core'), n8nWorkflow: versionOf('n8n-workflow') };
}
