/**
 * The package.json fields only the maintainer can give truthfully, set once before the first
 * publish (docs/publishing.md). n8n's verification matches `repository` and `author` against a
 * public GitHub repository, so none of them may be guessed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { projectRoot } from './n8n';

interface Person {
	name?: string;
	email?: string;
}

export interface PublishManifest {
	version: string;
	repository?: string | { url?: string };
	bugs?: string | { url?: string };
	homepage?: string;
	author?: string | Person;
}

const GITHUB_REPOSITORY = /^(git\+)?https:\/\/github\.com\/[\w.-]+\/[\w.-]+?(\.git)?$/;

function urlOf(field: string | { url?: string } | undefined): string {
	return (typeof field === 'string' ? field : field?.url ?? '').trim();
}

function authorEmail(author: PublishManifest['author']): string {
	if (typeof author === 'string') return /<([^>]*)>/.exec(author)?.[1]?.trim() ?? '';
	return author?.email?.trim() ?? '';
}

/** The project's package.json. */
export function readProjectManifest(): PublishManifest {
	return JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as PublishManifest;
}

/** What is still missing, each as the field and what it must hold; empty when ready. */
export function missingPublishFields(manifest: PublishManifest): string[] {
	const missing: string[] = [];
	if (!GITHUB_REPOSITORY.test(urlOf(manifest.repository))) {
		missing.push('repository: the public GitHub repository the package is published from (git+https://github.com/OWNER/REPO.git)');
	}
	if (!urlOf(manifest.bugs).startsWith('https://')) missing.push('bugs: the URL of its issue tracker');
	if (!(manifest.homepage ?? '').startsWith('https://')) missing.push('homepage: the URL of its README or documentation');
	if (authorEmail(manifest.author) === '') missing.push("author: the maintainer's name and e-mail");
	return missing;
}
