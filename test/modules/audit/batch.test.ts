/**
 * The clinic modules' batch writes (what an import calls) record one row per batch in the batch's
 * transaction: the ids created and changed, as whoever acts (an import: its job).
 */
import test from 'ava';
import appointmentsApi from '../../../modules/appointments/api.ts';
import documentsApi from '../../../modules/documents/api.ts';
import patientsApi from '../../../modules/patients/api.ts';
import { verifyChain } from '../../../src/audit/verify.ts';
import { acting } from '../../../src/db/acting.ts';
import { silentLogger } from '../../../src/logger.ts';
import { moduleSdk } from '../../../src/sdk/runtime.ts';
import { clinicDatabase } from '../helpers.ts';

test('upsertMany of patients, appointments and documents records one row per batch with the ids written', async (t) => {
  const { knex } = await clinicDatabase(t);
  const context = (module: string) => ({
    module,
    logger: silentLogger,
    storageDir: '.',
    sdk: moduleSdk({ module, knex, apis: new Map(), depends: [] }),
  });
  const patients = patientsApi(context('patients'));
  const appointments = appointmentsApi(context('appointments'));
  const documents = documentsApi(context('documents'));
  const job = acting(knex, 'job:migration_import:7');
  const patient = (mrn: string) => ({
    mrn,
    familyName: 'Okafor',
    givenName: mrn,
    birthDate: null,
    sex: 'unknown' as const,
    phone: null,
    email: null,
    address: null,
  });

  const first = await patients.upsertMany(job, [patient('B-1'), patient('B-2')]);
  const [a, b] = first.map((outcome) => (outcome as { id: number }).id) as [number, number];
  // One updated, one created, one refused for its taken MRN (not written, not recorded).
  await patients.upsertMany(job, [{ ...patient('B-1'), id: a }, patient('B-3'), patient('B-2')]);
  const created = (await knex('patients_patient').where({ mrn: 'B-3' }).first('id')) as { id: number };
  const visit = {
    patientId: a,
    practitionerName: 'Dr. Who',
    startAt: '2026-01-01T09:00:00Z',
    endAt: '2026-01-01T09:30:00Z',
    status: 'booked',
    reason: null,
  };
  const [visitId] = await appointments.upsertMany(job, [visit, { ...visit, patientId: b }]);
  await appointments.upsertMany(job, [{ ...visit, id: visitId!, reason: 'moved' }]);
  const doc = { patientId: b, title: 'Referral', contentType: 'text/plain', sha256: 'a'.repeat(64), size: 1 };
  const [docId] = await documents.upsertMany(job, [doc]);

  const rows = await knex('core_audit_event')
    .where({ action: 'record.batch' })
    .orderBy('id')
    .select('actor', 'module', 'kind', 'detail', 'patient_ids');
  const visitIds = (await knex('appointments_appointment').orderBy('id').pluck('id')) as number[];
  t.deepEqual(rows, [
    {
      actor: 'job:migration_import:7',
      module: 'patients',
      kind: 'patient',
      detail: { created: [a, b], updated: [] },
      patient_ids: [String(a), String(b)],
    },
    {
      actor: 'job:migration_import:7',
      module: 'patients',
      kind: 'patient',
      detail: { created: [created.id], updated: [a] },
      patient_ids: [String(a), String(created.id)],
    },
    {
      actor: 'job:migration_import:7',
      module: 'appointments',
      kind: 'appointment',
      detail: { created: visitIds, updated: [], patients: [a, b] },
      patient_ids: [String(a), String(b)],
    },
    {
      actor: 'job:migration_import:7',
      module: 'appointments',
      kind: 'appointment',
      detail: { created: [], updated: [visitId], patients: [a] },
      patient_ids: [String(a)],
    },
    {
      actor: 'job:migration_import:7',
      module: 'documents',
      kind: 'document',
      detail: { created: [docId], updated: [], patients: [b] },
      patient_ids: [String(b)],
    },
  ]);
  t.like(await verifyChain(knex), { intact: true });
});

test('a batch whose transaction rolls back leaves neither its records nor its audit row', async (t) => {
  const { knex } = await clinicDatabase(t);
  const sdk = moduleSdk({ module: 'documents', knex, apis: new Map(), depends: [] });
  const documents = documentsApi({ module: 'documents', logger: silentLogger, storageDir: '.', sdk });
  const [patientId] = (await knex('patients_patient')
    .insert({ mrn: 'R-1', family_name: 'Okafor', given_name: 'Ada' })
    .returning('id')) as Array<{ id: number }>;
  const doc = {
    patientId: patientId!.id,
    title: 'Referral',
    contentType: 'text/plain',
    sha256: 'b'.repeat(64),
    size: 1,
  };
  await t.throwsAsync(
    acting(knex, 'job:1').transaction(async (_trx, bound) => {
      await documents.upsertMany(bound, [doc]);
      throw new Error('the rest of the batch failed');
    }),
    { message: 'the rest of the batch failed' },
  );
  t.deepEqual(await knex('core_audit_event').where({ action: 'record.batch' }).select('id'), []);
  t.deepEqual(await knex('documents_document').select('id'), []);
});
