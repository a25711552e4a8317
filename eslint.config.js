import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'src/metadata.ts', '.stryker-tmp/', 'reports/', 'test-results/'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through src/config/config.ts.' }],
    },
  },
  {
    files: ['src/config/config.ts', 'test/**', 'bench/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
  {
    // The dashboard's one script runs in the browser.
    files: ['assets/**/*.js'],
    languageOptions: { globals: { document: 'readonly', navigator: 'readonly' } },
  },
);
