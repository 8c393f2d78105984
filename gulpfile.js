const { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { src, dest, parallel } = require('gulp');
const esbuild = require('esbuild');

// tsc emits only JavaScript; n8n loads icons and each node's codex (*.node.json) from dist as files.
function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(
		dest('dist'),
	);
}

const PARSER_OUT = 'dist/bundled/fastXmlParser.js';

/** The package folders (under node_modules) that esbuild put into the bundle. */
function bundledPackages(metafile) {
	const folders = Object.keys(metafile.inputs)
		.map((input) => /^(node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1])
		.filter(Boolean);
	return [...new Set(folders)].sort();
}

/** Their licences travel with the code, as the MIT licence of each asks. */
function licenceText(folders) {
	return folders
		.map((folder) => {
			const { name, version, license, author } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
			const file = readdirSync(folder).find((entry) => /^licen[cs]e/i.test(entry));
			const text = file === undefined ? `(no licence file in the package; author: ${JSON.stringify(author)})` : readFileSync(join(folder, file), 'utf8').trim();
			return `${name}@${version} (${license})\n\n${text}\n`;
		})
		.join('\n---\n\n');
}

/**
 * Replaces tsc's re-export of fast-xml-parser with the library itself, so the installed package
 * has no runtime dependency. Runs after tsc, which emitted the module's declaration.
 */
async function bundleParser() {
	const { metafile } = await esbuild.build({
		entryPoints: ['bundled/fastXmlParser.ts'],
		outfile: PARSER_OUT,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		metafile: true,
		legalComments: 'none',
		banner: { js: '/* Bundled at build time; licences of the bundled packages: fastXmlParser.licenses.txt */' },
		logLevel: 'warning',
	});
	// tsc's source map describes the re-export, not the bundle.
	if (existsSync(`${PARSER_OUT}.map`)) rmSync(`${PARSER_OUT}.map`);
	writeFileSync('dist/bundled/fastXmlParser.licenses.txt', licenceText(bundledPackages(metafile)));
}

exports.build = parallel(copyIcons, bundleParser);
