import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Imports of build-time code (reference/build/, site/build-site.ts, scripts/). */
const BUILD_CODE = {
  regex: '^\\.{1,2}/(.*/)?(build/|build-site\\.js$|scripts/)',
  message: 'Build-time code is not part of the running service: import the runtime module (e.g. reference/reference-documents.ts) instead.',
};

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'coverage/',
      'src/metadata.ts',
      'test/client/openapi.d.ts',
      '.stryker-tmp/',
      'reports/',
      'test-results/',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through src/config/config.ts.' },
      ],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
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
  // Module contracts. The running service never needs build-time code: reference/build/ writes
  // dist/reference and site/build-site.ts writes dist/site, both run by scripts/ only.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts', 'src/**/test-support.ts', 'src/reference/build/**', 'src/site/build-site.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [BUILD_CODE] }] },
  },
  // i18n/ is platform: the words, formats and languages of every module; it imports only common/.
  ...[
    ['src/i18n/*.ts', '^\\.\\./(?!common/)'],
    ['src/i18n/messages/*.ts', '^\\.\\./\\.\\./(?!common/)'],
  ].map(([files, regex]) => ({
    files: [files],
    ignores: ['src/**/*.spec.ts', 'src/**/test-support.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [BUILD_CODE, { regex, message: 'i18n/ imports only common/: it knows no feature, page or credential.' }] },
      ],
    },
  })),
  // One way to the database per module: services and controllers call no SQL (`.query(`, a query builder); their module's
  // repository does (`*.repository.ts`), in the transaction the service passes it.
  {
    files: ['src/**/*.service.ts', 'src/**/*.controller.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(query|createQueryBuilder)$/]',
          message:
            "SQL belongs in the module's repository (*.repository.ts): call a method of it, passing the transaction's EntityManager.",
        },
      ],
    },
  },
  // config/ is read by every module, so it depends on none of them: what it shares with one lives in common/.
  {
    files: ['src/config/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            BUILD_CODE,
            { regex: '^\\.\\./(?!common/)', message: 'config/ imports no feature module; move what it needs to common/.' },
          ],
        },
      ],
    },
  },
);
