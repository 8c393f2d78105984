/**
 * n8n's lint for community nodes as `n8n-node lint` (@n8n/node-cli 0.48.3) sets it up, from the
 * same plugins' exported configs: the CLI also installs n8n's AI SDK, which npm 10 cannot install
 * (docs/development.md, Lint).
 */
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import { defineConfig, globalIgnores } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import tseslint from 'typescript-eslint';

const communityNodes = n8nCommunityNodesPlugin.configs.recommended;

export default defineConfig(
	globalIgnores(['dist']),
	{
		files: ['**/*.ts'],
		extends: [js.configs.recommended, tseslint.configs.recommended, communityNodes, importX.flatConfigs.recommended],
		// The CLI's two changes to the recommended sets.
		rules: { 'prefer-spread': 'off', 'no-console': 'error' },
	},
	{
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		settings: { 'import-x/resolver-next': [createTypeScriptImportResolver()] },
	},
	{
		files: ['package.json'],
		extends: [communityNodes],
		rules: n8nNodesBase.configs.community.rules,
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
	},
	{
		files: ['credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			// The CLI's exceptions for community credentials; n8n's scanner makes the same.
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// The CLI's exceptions for community nodes; n8n's scanner makes the same.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
);
