/**
 * An import leaves its trail: create, validate, preview, execute and purge by the user who asked,
 * and one row per batch the run wrote, as the job (`job:<id>`), naming the user who executed it.
 */
import { createHash } from 'node:crypto';
import test from 'ava';
import { verifyChain } from '../../../src/audit/verify.ts';
import { createJob, execute, fixtureBytes, validate, world } from './world.ts';

test("an import's steps are recorded as the user, its writes as the job with the executing user", async (t) => {
  const w = await world(t);
  const ada = ((await w.knex('base_user').where({ username: 'ada' }).first('id')) as { id: number }).id;
  const job = await createJob(w, await fixtureBytes('synthea/patients.csv'), {
    format: 'synthea-patients-csv',
  });
  t.is((await validate(w, job.id)).state, 'validated');
  t.is((await w.api('POST', `/jobs/${job.id}/preview`)).status, 200);
  t.is((await execute(w, job.id)).state, 'succeeded');
  t.is((await w.api('POST', `/jobs/${job.id}/purge`)).status, 200);

  const rows = (await w
    .knex('core_audit_event')
    .where({ module: 'migration_import' })
    .orderBy('id')
    .select('actor', 'user_id', 'action', 'kind', 'record_id', 'detail')) as Array<{
    actor: string;
    user_id: number | null;
    action: string;
    record_id: string;
    detail: Record<string, unknown> | null;
  }>;
  const user = new RegExp(`^user:${ada}:session:`);
  const byUser = rows.filter((row) => row.user_id === ada);
  t.deepEqual(
    byUser.map((row) => row.action),
    ['import.create', 'import.validate', 'import.preview', 'import.execute', 'import.purge'],
  );
  for (const row of byUser) {
    t.regex(row.actor, user);
    t.is(row.record_id, String(job.id));
  }
  const batches = rows.filter((row) => row.actor.startsWith('job:'));
  t.true(batches.length > 0);
  for (const batch of batches) {
    t.is(batch.actor, `job:migration_import:${job.id}`);
    t.is(batch.action, 'import.execute');
    t.regex(String(batch.detail!.executedBy), user);
  }
  const created = batches.reduce(
    (sum, batch) => sum + (batch.detail!.wrote as { patient: { created: number } }).patient.created,
    0,
  );
  t.is(created, 50, 'the batches account for every patient the run created');
  t.like(await verifyChain(w.knex), { intact: true });
});

test('a binary upload is recorded with the row it stored, and the same file again as a duplicate', async (t) => {
  const w = await world(t);
  const job = await createJob(w, JSON.stringify({ resourceType: 'Patient', id: 'p-1' }), {
    format: 'fhir-ndjson',
  });
  const note = Buffer.from('a scanned note\n');
  const sha256 = createHash('sha256').update(note).digest('hex');
  const send = () =>
    w.api('POST', `/jobs/${job.id}/binaries?ref=note.txt`, {
      body: note,
      headers: { 'content-type': 'text/plain', 'x-content-sha256': sha256 },
    });
  t.is((await send()).status, 201);
  t.is((await send()).status, 200);
  const uploads = await w.knex('core_audit_event').where({ action: 'import.upload' }).orderBy('id').select();
  t.is(uploads.length, 2);
  t.like(uploads[0], {
    module: 'migration_import',
    record_id: String(job.id),
    detail: { ref: 'note.txt', sha256, size: note.length, duplicate: false },
  });
  t.regex(uploads[0].actor, /^user:\d+:session:/);
  t.like(uploads[1], { detail: { ref: 'note.txt', duplicate: true } });
  // One transaction wrote the binary's row and its audit row: they carry the same xmin.
  const xmin = async (table: string, where: Record<string, unknown>) =>
    ((await w.knex(table).where(where).first(w.knex.raw('xmin::text as xmin'))) as { xmin: string }).xmin;
  t.is(
    await xmin('core_audit_event', { id: uploads[0].id }),
    await xmin('migration_import_binary', { job_id: job.id, ref: 'note.txt' }),
  );
  t.like(await verifyChain(w.knex), { intact: true });
});
