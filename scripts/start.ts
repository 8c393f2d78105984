/**
 * `npm start`: the n8n editor on http://localhost:5678 with this package installed, a credential
 * pointing at a local sandbox of the service (the test double, with demo data) and the example
 * workflows imported, in the n8n users run today (N8N_NEWEST_VERSION, on the Node.js it needs).
 * Ctrl-C stops everything.
 *
 * Options: `npm start -- --port 5679` (or N8N_PORT) for another port; `--user-folder <path>`
 * (or N8N_USER_FOLDER) for another n8n user folder, e.g. to run two sandboxes side by side;
 * `--n8n=2.8.4` for another release scripts/n8nRelease.ts installs.
 */
import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import {
	ensureN8nInstalled,
	importCredentials,
	importWorkflows,
	installCommunityPackage,
	N8N_NEWEST_VERSION,
	n8nEnvironment,
	packProject,
	projectRoot,
	onN8nNode,
	removeFolder,
	selectedInstallDir,
	startN8nServer,
} from './n8n';
import { editorPort, editorUrl, ensureOwner, optionValue, SANDBOX_OWNER, waitForEditor } from './editor';
import { refuseTakenPort } from './portCheck';
import { installExitHooks, stopAllChildren, tail } from './processes';
import { SANDBOX_CREDENTIAL_NAME, sandboxCredential, startSandbox } from './sandbox';

const log = (line: string) => console.log(line);

/**
 * n8n's user folder from `--user-folder <path>`, else N8N_USER_FOLDER, else sandbox-user/ in
 * the release's install folder (ignored by git): an older n8n cannot open a database a newer one
 * migrated. Kept between starts, so the owner and your own workflows stay.
 */
function userFolderOption(argv: string[] = process.argv.slice(2)): string {
	const given = optionValue(argv, 'user-folder') ?? process.env.N8N_USER_FOLDER;
	return given === undefined || given === '' ? join(selectedInstallDir(), 'sandbox-user') : resolve(given);
}

async function main(): Promise<void> {
	const port = editorPort();
	const userFolder = userFolderOption();
	await refuseTakenPort(port);
	await ensureN8nInstalled(log);
	const { double, seeded } = await startSandbox(7 * 24 * 3600_000);
	const shutdown = async () => {
		log('\nStopping n8n and the sandbox ...');
		stopAllChildren();
		await double.close();
	};
	installExitHooks(shutdown);

	log('Packing the package and installing it into n8n as a community package ...');
	const scratch = join(selectedInstallDir(), 'pack');
	await removeFolder(scratch);
	const tarball = await packProject(scratch);
	await installCommunityPackage(userFolder, tarball);

	const env = await n8nEnvironment(userFolder, {
		N8N_PORT: String(port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: 'localhost',
		N8N_SECURE_COOKIE: 'false',
	});
	log('Importing the sandbox credential and the example workflows ...');
	await importCredentials([sandboxCredential(double)], env, userFolder);
	await importWorkflows(join(projectRoot, 'examples'), env);

	log('Starting n8n ...');
	const server = startN8nServer(env);
	void server.exited.then((code) => {
		console.error(`n8n stopped (exit code ${code}).\n${tail(server.recentOutput())}`);
		void shutdown().finally(() => process.exit(code === 0 ? 0 : 1));
	});
	await waitForEditor(port, server, 180_000);
	await ensureOwner(port);

	const examples = (await readdir(join(projectRoot, 'examples'))).filter((file) => file.endsWith('.json'));
	const editor = editorUrl(port);
	log(`
n8n with n8n-nodes-mailing-platform is running.

  Editor:      ${editor}
  Login:       ${SANDBOX_OWNER.email} / ${SANDBOX_OWNER.password}
  Credential:  "${SANDBOX_CREDENTIAL_NAME}" -> sandbox at ${double.baseUrl} (API key ${double.apiKey})
  Sandbox data: ${seeded.join(', ')}
  Examples:    ${examples.length} workflows (re-imported at every start): ${editor}/home/workflows

Press Ctrl-C to stop n8n and the sandbox.`);
}

onN8nNode(
	process.argv.slice(2),
	() => {
		main().catch((error) => {
			console.error(error instanceof Error ? error.message : error);
			stopAllChildren('SIGKILL');
			process.exit(1);
		});
	},
	N8N_NEWEST_VERSION,
);
