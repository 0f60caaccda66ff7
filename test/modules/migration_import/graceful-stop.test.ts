/**
 * A backend that stops gracefully (a restart) in the middle of an execute: its run stops at a
 * batch, within the job queue's grace, leaving the job `executing` after its last committed batch;
 * the next backend on the same database is handed the run by the queue and finishes it, writing
 * every patient once.
 */
import { channel } from 'node:diagnostics_channel';
import test from 'ava';
import { syntheaPatientsCsv } from '../../../scripts/generate-import-fixtures.ts';
import { addUser, call, signIn, startApp } from '../../helpers/app.ts';
import { scratchDir } from '../../helpers/cli.ts';
import { API, importDatabase, type JobBody } from './world.ts';

process.env.WARD_IMPORT_BATCH_SIZE = '10';
process.env.WARD_IMPORT_LEASE_SECONDS = '1';

const ROWS = 3000;

test('a run cut short by a graceful stop is finished by the next backend, every row once', async (t) => {
  const { knex } = await importDatabase(t);
  const storage = await scratchDir('ward-import-stop-');
  await addUser(knex, 'ada', ['admin']);
  const first = await startApp(t, knex, { overrides: { storageDir: storage } });
  const token = (await signIn(first.base, 'ada')).token;
  const api = (base: string, method: string, pathname: string, body?: Buffer) =>
    call(base, method, `${API}${pathname}`, { token, ...(body === undefined ? {} : { body }) });
  const job = async (base: string, id: number) => (await api(base, 'GET', `/jobs/${id}`)).body as JobBody;

  let csv = '';
  for await (const chunk of syntheaPatientsCsv(ROWS, 11)) csv += chunk;
  const created = await api(
    first.base,
    'POST',
    '/jobs?format=synthea-patients-csv&source_system=old',
    Buffer.from(csv),
  );
  const id = (created.body as JobBody).id;
  t.is((await api(first.base, 'POST', `/jobs/${id}/validate`)).status, 202);
  while ((await job(first.base, id)).state !== 'validated') await new Promise((r) => setTimeout(r, 50));

  // Stopped once a few batches are in: the rest of the 300 cannot be written within the grace.
  const batches = channel('ward.migration_import.batch');
  const third = new Promise<void>((resolve) => {
    const seen = (message: unknown) => {
      const { job: of, batch, point } = message as { job: number; batch: number; point: string };
      if (of === id && batch === 3 && point === 'committed') {
        batches.unsubscribe(seen);
        resolve();
      }
    };
    batches.subscribe(seen);
  });
  t.is((await api(first.base, 'POST', `/jobs/${id}/execute`)).status, 202);
  await third;
  await first.app.close(0);
  const left = await knex('migration_import_job').where({ id }).first();
  t.is(left.state, 'executing');
  t.true(left.rows_done >= 30 && left.rows_done < ROWS, `stopped after ${left.rows_done} rows`);

  const next = await startApp(t, knex, { overrides: { storageDir: storage } });
  let done = await job(next.base, id);
  while (done.state === 'executing') {
    await new Promise((r) => setTimeout(r, 100));
    done = await job(next.base, id);
  }
  t.is(done.state, 'succeeded');
  t.deepEqual(done.results.patient, { created: ROWS, updated: 0, skipped: 0, failed: 0 });
  t.is(Number(((await knex('patients_patient').count({ n: '*' })) as Array<{ n: string }>)[0]!.n), ROWS);
});
