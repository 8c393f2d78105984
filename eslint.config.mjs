import { parseExpressionAt } from 'acorn';
import tsParser from '@typescript-eslint/parser';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';

/**
 * The community-package rules of eslint-plugin-n8n-nodes-base inspect package.json as an
 * object literal. Parsing the file as one expression keeps every node's position exact.
 */
const packageJsonParser = {
	meta: { name: 'package-json-as-expression' },
	parseForESLint(code) {
		const options = { ecmaVersion: 'latest', locations: true, ranges: true };
		const expression = parseExpressionAt(code, code.indexOf('{'), options);
		const lines = code.split('\n');
		const loc = {
			start: { line: 1, column: 0 },
			end: { line: lines.length, column: lines[lines.length - 1].length },
		};
		const statement = { type: 'ExpressionStatement', expression, range: expression.range, loc: expression.loc };
		return {
			ast: { type: 'Program', sourceType: 'module', body: [statement], range: [0, code.length], loc, tokens: [], comments: [] },
		};
	},
};

export default [
	{
		ignores: ['dist/**', 'node_modules/**', '.n8n-e2e*/**', '.latest/**', '.build-test/**', 'coverage/**'],
	},
	{
		files: ['**/*.ts'],
		languageOptions: { parser: tsParser, parserOptions: { sourceType: 'module' } },
	},
	{
		files: ['package.json'],
		languageOptions: { parser: packageJsonParser },
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.credentials.rules,
	},
	{
		files: ['nodes/**/*.ts'],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: n8nNodesBase.configs.nodes.rules,
	},
	{
		...n8nCommunityNodesPlugin.configs.recommended,
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
	},
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
		// Where the legacy rule sets contradict n8n's community-package scanner, the scanner wins:
		// it requires NodeConnectionTypes (not 'main' literals) and accepts a documentation URL.
		files: ['nodes/**/*.ts', 'credentials/**/*.ts'],
		rules: {
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
];
