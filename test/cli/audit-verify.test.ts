/**
 * `ward audit verify` and `ward audit checkpoint` through the real bin/ward, and what operators'
 * commands leave in the trail: `ward users …` and `ward modules …` act as `cli:<os user>`.
 */
import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { AUTH_MODULES, PASSWORD, installedDatabase } from '../helpers/app.ts';
import { parseJson, scratchDir, ward } from '../helpers/cli.ts';

const tamper = (knex: Knex, sql: string) =>
  knex.transaction(async (trx) => {
    await trx.raw('set local session_replication_role = replica');
    await trx.raw(sql);
  });

test('operator commands are recorded as cli:<user>; verify passes, then fails naming the row after an edit or a deletion', async (t) => {
  const { url, knex } = await installedDatabase(t);
  const storage = await scratchDir('ward-audit-');
  const env = { DATABASE_URL: url, WARD_STORAGE_DIR: storage, WARD_MODULE_PATHS: AUTH_MODULES };
  const cli = `cli:${os.userInfo().username}`;

  const created = await ward(['users', 'create', 'bob', '--password-stdin'], env, { input: `${PASSWORD}\n` });
  t.is(created.code, 0, created.stderr);
  const disabled = await ward(['users', 'disable', 'bob'], env);
  t.is(disabled.code, 0, disabled.stderr);
  const installed = await ward(['modules', 'install', 'patients'], env);
  t.is(installed.code, 0, installed.stderr);
  const rows = (await knex('core_audit_event')
    .where({ actor: cli })
    .orderBy('id')
    .select('action', 'record_id', 'detail')) as Array<{
    action: string;
    record_id: string;
    detail: unknown;
  }>;
  t.deepEqual(
    rows.map((row) => row.action),
    ['user.create', 'user.disable', 'module.install'],
  );
  t.is(rows[2]!.record_id, 'patients');
  t.deepEqual(rows[2]!.detail, { plan: [{ kind: 'install', module: 'patients' }] });

  const intact = await ward(['audit', 'verify'], env);
  t.is(intact.code, 0, intact.stderr);
  t.regex(intact.stdout, /^The audit trail is intact: \d+ rows, \d+ to \d+\.\n$/);

  const checkpointFile = path.join(storage, 'checkpoint.json');
  const checkpoint = await ward(['audit', 'checkpoint', '--output', checkpointFile], env);
  t.is(checkpoint.code, 0, checkpoint.stderr);
  const taken = parseJson<{ id: string; hash: string }>(checkpoint);
  t.regex(taken.hash, /^[0-9a-f]{64}$/);
  const against = await ward(['audit', 'verify', '--checkpoint', checkpointFile], env);
  t.is(against.code, 0, against.stderr);
  t.regex(against.stdout, new RegExp(`row ${taken.id} matches the checkpoint`));

  const ids = (await knex('core_audit_event').orderBy('id').pluck('id')) as string[];
  await tamper(knex, `update core_audit_event set detail = null where id = ${ids[1]}`);
  const edited = await ward(['audit', 'verify', '--json'], env);
  t.is(edited.code, 1);
  t.like(parseJson(edited), { error: { code: 'audit_chain_broken' } });
  t.regex(JSON.stringify(parseJson(edited)), new RegExp(`broken at row ${ids[1]}`));

  await tamper(knex, `delete from core_audit_event where id = ${ids[1]}`);
  const deleted = await ward(['audit', 'verify'], env);
  t.is(deleted.code, 1);
  t.regex(deleted.stderr, new RegExp(`broken at row ${ids[2]}`));

  await writeFile(checkpointFile, '{"id": "x"}');
  const bad = await ward(['audit', 'verify', '--checkpoint', checkpointFile], env);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /is not an audit checkpoint/);
});
