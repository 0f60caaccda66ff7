/**
 * An import leaves its trail: create, validate, preview, execute and purge by the user who asked,
 * and one row per batch the run wrote, as the job (`job:<id>`), naming the user who executed it.
 */
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
