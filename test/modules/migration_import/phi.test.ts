/**
 * No patient data beyond the caller's permissions: a preview's Ward side (before, the merged
 * after, the Ward id) and a warning naming whose record an MRN belongs to are shown only to a
 * caller who may read that record through its own module. Without that permission the preview
 * still says what happens and the warning why, without showing whose record it is.
 */
import test, { type ExecutionContext } from 'ava';
import { addUser, call, signIn } from '../../helpers/app.ts';
import { API, createJob, execute, fixtureBytes, validate, world, type WarningBody } from './world.ts';

const GRANTS = {
  roles: {
    import_viewer: ['migration_import.job.read'],
    import_clinician: ['migration_import.job.read', 'patients.patient.read'],
  },
};

const MARIA = 'fb165133-d04c-455d-9e6c-f09c5e5335e3';

async function setting(t: ExecutionContext) {
  const w = await world(t, { grants: GRANTS });
  await addUser(w.knex, 'vera', ['import_viewer']);
  await addUser(w.knex, 'cleo', ['import_clinician']);
  const as = async (user: string) => {
    const token = (await signIn(w.base, user)).token;
    return (method: string, pathname: string) => call(w.base, method, `${API}${pathname}`, { token });
  };
  return { w, viewer: await as('vera'), clinician: await as('cleo') };
}

interface PreviewBody {
  samples: Record<string, Array<Record<string, unknown>>>;
  counts: Record<string, Record<string, number>>;
}

test("preview shows Ward's side of an update only to a caller who may read patients", async (t) => {
  const { w, viewer, clinician } = await setting(t);
  const csv = await fixtureBytes('synthea/patients.csv');
  await execute(w, (await validate(w, (await createJob(w, csv, { format: 'synthea-patients-csv' })).id)).id);
  // Staff changed Maria's name and added a phone since: the next import updates her.
  await w
    .knex('patients_patient')
    .where({ mrn: MARIA })
    .update({ family_name: 'Smith-Jones', phone: '555-0199' });
  const job = await validate(w, (await createJob(w, csv, { format: 'synthea-patients-csv' })).id);

  const forViewer = (await viewer('POST', `/jobs/${job.id}/preview`)).body as PreviewBody;
  const text = JSON.stringify(forViewer);
  t.false(text.includes('Smith-Jones'), 'the current Ward name is not shown');
  t.false(text.includes('555-0199'), 'a Ward-only value is not shown through the merged after');
  t.deepEqual(forViewer.samples.update, [
    {
      kind: 'patient',
      row: 2,
      sourceId: MARIA,
      action: 'update',
      wardId: null,
      before: null,
      after: null,
      changes: [{ field: 'familyName' }],
      hidden: 'patients.patient.read',
    },
  ]);
  t.is(forViewer.counts.patient!.skip, 49, 'what happens is still counted');
  t.true(forViewer.samples.skip!.every((step) => step.before === null && step.hidden !== undefined));

  const forClinician = (await clinician('POST', `/jobs/${job.id}/preview`)).body as PreviewBody;
  t.like(forClinician.samples.update![0], {
    before: { familyName: 'Smith-Jones', phone: '555-0199' },
    after: { familyName: 'Smith', phone: '555-0199' },
  });
});

test('a warning that an MRN is taken names the Ward patient only to a caller who may read patients', async (t) => {
  const { w, viewer, clinician } = await setting(t);
  const [owner] = (await w
    .knex('patients_patient')
    .insert({ mrn: MARIA, family_name: 'Walk-in', given_name: 'Mary' })
    .returning('id')) as Array<{ id: number }>;
  const csv = await fixtureBytes('synthea/patients.csv');
  const job = await execute(
    w,
    (await validate(w, (await createJob(w, csv, { format: 'synthea-patients-csv' })).id)).id,
  );
  const errors = async (as: typeof viewer) =>
    ((await as('GET', `/jobs/${job.id}/warnings?severity=error`)).body as { items: WarningBody[] }).items;

  const [seen] = await errors(viewer);
  t.like(seen, { row: 2, field: 'mrn', code: 'mrn_taken' });
  t.is(
    seen!.message,
    `MRN "${MARIA}" already belongs to another Ward patient (which one is shown to those holding patients.patient.read), which is not this source's patient "${MARIA}"; merge or renumber one of them in Ward, then execute the job again`,
  );
  t.false(seen!.message.includes(`patient ${owner!.id},`));
  const [full] = await errors(clinician);
  t.true(full!.message.includes(`already belongs to Ward patient ${owner!.id},`));
});
