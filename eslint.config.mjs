import config from './eslint.n8n.mjs';

/** The rules n8n's configuration sets for code that n8n loads from a community package. */
const communityNodeRules = config
	.flatMap((block) => Object.keys(block.rules ?? {}))
	.filter((rule) => rule.startsWith('@n8n/community-nodes/'));

/** What keeps each "one way" of the nodes true: a file outside its home that does it fails the lint. */
const ONE_WAY = {
	callService: {
		selector: 'MemberExpression[object.property.name="helpers"][property.name=/^(httpRequest|httpRequestWithAuthentication|request|requestWithAuthentication)$/]',
		message: 'Call the service through apiRequest (transport/index.ts), the one transport.',
	},
	buildApiError: {
		selector: 'NewExpression[callee.name=/^(NodeApiError|ServiceError)$/]',
		message: 'Build service errors with serviceError (transport/errors.ts).',
	},
	readParameter: {
		selector: 'MemberExpression[property.name="getNodeParameter"]',
		message: 'Read parameters through helpers/parameters.ts.',
	},
};
const oneWayExcept = (home) => ({
	files: home.files,
	rules: { 'no-restricted-syntax': ['error', ...Object.entries(ONE_WAY).filter(([name]) => !home.allows.includes(name)).map(([, rule]) => rule)] },
});

export default [
	{
		ignores: ['node_modules/**', '.n8n-e2e*/**', '.latest/**', '.newcomer/**', '.postgres/**', '.build-test/**', 'coverage/**'],
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
	oneWayExcept({ files: ['nodes/**/*.ts'], allows: [] }),
	oneWayExcept({ files: ['nodes/MailingPlatform/transport/index.ts'], allows: ['callService'] }),
	oneWayExcept({ files: ['nodes/MailingPlatform/transport/errors.ts'], allows: ['buildApiError'] }),
	oneWayExcept({
		files: ['nodes/MailingPlatform/helpers/parameters.ts', 'nodes/MailingPlatform/MailingPlatform.node.ts', 'nodes/MailingPlatformTrigger/*.node.ts'],
		allows: ['readParameter'],
	}),
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
