/**
 * `GET /health` is public: it tells a probe the status, the version and which modules drifted, and
 * nothing about the machine (no absolute paths of the module code).
 */
import test from 'ava';
import type { DriftEntry } from '../../src/planner/drift.ts';
import { VERSION } from '../../src/version.ts';
import { call, installedDatabase, startApp } from '../helpers/app.ts';

test('/health is healthy with its version and no drift when module code matches', async (t) => {
  const { knex } = await installedDatabase(t);
  const { base } = await startApp(t, knex);
  const answer = await call(base, 'GET', '/health');
  t.is(answer.status, 200);
  t.deepEqual(answer.body, { status: 'healthy', version: VERSION });
});

test('/health names drifted modules and the kind of drift, never the paths in the details', async (t) => {
  const { knex } = await installedDatabase(t);
  const drift: DriftEntry[] = [
    { module: 'intake', change: 'version_changed', detail: '1.0.0 -> 1.1.0 on disk' },
    {
      module: 'lab',
      change: 'manifest_error',
      detail: '/srv/ward/modules/lab/manifest.json/version: must match pattern',
    },
  ];
  const { base } = await startApp(t, knex, { overrides: { health: { drift: () => drift } } });
  const answer = await call(base, 'GET', '/health');
  t.is(answer.status, 200);
  t.deepEqual(answer.body, {
    status: 'healthy',
    version: VERSION,
    drift: [
      { module: 'intake', change: 'version_changed' },
      { module: 'lab', change: 'manifest_error' },
    ],
  });
  t.notRegex(answer.text, /\/srv\/ward|manifest\.json/);
});
