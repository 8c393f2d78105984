import config from './eslint.n8n.mjs';

/** The rules n8n's configuration sets for code that n8n loads from a community package. */
const communityNodeRules = config
	.flatMap((block) => Object.keys(block.rules ?? {}))
	.filter((rule) => rule.startsWith('@n8n/community-nodes/'));

export default [
	{
		ignores: ['node_modules/**', '.n8n-e2e*/**', '.latest/**', '.newcomer/**', '.build-test/**', 'coverage/**'],
	},
	...config,
	{
		// Only the maintainer can give a true author e-mail, before the first publish (README,
		// Publishing): `npm run scan` reports it as awaited and the publish workflow requires it.
		files: ['package.json'],
		rules: { '@n8n/community-nodes/valid-author': 'off' },
	},
	{
		// n8n loads the credential on its own (editor, credential test): it stays a leaf, and the
		// nodes import its name, Accept header and time-zone check from it.
		files: ['credentials/**/*.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{ patterns: [{ group: ['**/nodes/**', '**/bundled/**'], message: 'The credential imports nothing of the nodes.' }] },
			],
		},
	},
	{
		// Tests, benchmarks and scripts are not published: they start processes, use Node's modules
		// and print to the terminal, which the rules for node code forbid.
		files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
		rules: {
			...Object.fromEntries(communityNodeRules.map((rule) => [rule, 'off'])),
			'no-console': 'off',
		},
	},
];
