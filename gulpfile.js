const { src, dest } = require('gulp');

// tsc emits only JavaScript; n8n loads icons and each node's codex (*.node.json) from dist as files.
function copyIcons() {
	return src(['nodes/**/*.{png,svg}', 'nodes/**/*.node.json', 'credentials/**/*.{png,svg}'], {
		base: '.',
		encoding: false,
	}).pipe(
		dest('dist'),
	);
}

exports['build:icons'] = copyIcons;
