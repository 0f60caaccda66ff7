/**
 * The preview's practitioner notice: the practitioner names of the appointments an import would
 * write, matched to existing practitioners case, accents and punctuation aside, or listed as
 * practitioners execute would create; and execute doing exactly that. With the real Synthea CSV
 * export (test/fixtures/synthea-export), whose encounters name each practitioner by a PROVIDER id.
 */
import { readFile } from 'node:fs/promises';
import test from 'ava';
import fc from 'fast-check';
import { addUser, call, signIn } from '../../helpers/app.ts';
import { planPractitioners } from '../../../modules/appointments/lib/practitioners.ts';
import { PractitionerTally } from '../../../modules/migration_import/lib/practitioner-tally.ts';
import { clinicalCounts, createJob, execute, validate, world } from './world.ts';

const EXPORT = new URL('../../fixtures/synthea-export/', import.meta.url);

interface Plan {
  matched: Array<{ practitioner: { id: number; name: string }; names: string[]; appointments: number }>;
  created: Array<{ name: string; names: string[]; appointments: number }>;
  untracked: number;
}

/** The encounters' PROVIDER ids with their number of encounters, read from the file itself. */
async function providers(): Promise<Map<string, number>> {
  const [header, ...lines] = (await readFile(new URL('encounters.csv', EXPORT), 'utf8')).trim().split('\n');
  const column = header!.split(',').indexOf('PROVIDER');
  const counts = new Map<string, number>();
  for (const line of lines) {
    const id = line.split(',')[column]!;
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

test('planPractitioners groups names by folded name against the existing practitioners', (t) => {
  const ng = { id: 7, name: 'Dr Ng', specialty: null, active: true, userId: null };
  const plan = planPractitioners(
    [
      { name: 'Dr. Müller', appointments: 2 },
      { name: 'DR NG', appointments: 1 },
      { name: ' dr muller ', appointments: 1 },
      { name: '--', appointments: 4 },
    ],
    new Map([['dr ng', ng]]),
  );
  t.deepEqual(plan, {
    matched: [{ practitioner: ng, names: ['DR NG'], appointments: 1 }],
    created: [{ name: 'Dr. Müller', names: ['Dr. Müller', 'dr muller'], appointments: 3 }],
  });
});

test('PractitionerTally counts every name and lists at most its limit of distinct names', (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('a', 'b', 'c', 'd', 'e')),
      fc.integer({ min: 1, max: 5 }),
      (names, limit) => {
        const tally = new PractitionerTally(limit);
        for (const name of names) tally.add(name);
        const listed = tally.names();
        t.true(listed.length <= limit);
        t.is(listed.reduce((sum, entry) => sum + entry.appointments, 0) + tally.untracked, names.length);
      },
    ),
  );
});

test('the Synthea encounters preview names the practitioners execute creates and the one it matches', async (t) => {
  const w = await world(t);
  const counts = await providers();
  const patients = await createJob(w, await readFile(new URL('patients.csv', EXPORT)), {
    format: 'synthea-patients-csv',
  });
  await execute(w, (await validate(w, patients.id)).id);
  // A practitioner the clinic already has, spelled as the old system's id in capitals.
  const [known, knownCount] = [...counts].sort(([a], [b]) => (a < b ? -1 : 1))[0]!;
  const [existing] = (await w
    .knex('appointments_practitioner')
    .insert({ name: known.toUpperCase(), folded_name: known.replaceAll('-', ' ') })
    .returning('id')) as Array<{ id: number }>;

  const job = await validate(
    w,
    (
      await createJob(w, await readFile(new URL('encounters.csv', EXPORT)), {
        format: 'synthea-encounters-csv',
      })
    ).id,
  );
  const preview = await w.api('POST', `/jobs/${job.id}/preview`);
  t.is(preview.status, 200, preview.text);
  const plan = (preview.body as { practitioners: Plan }).practitioners;
  t.deepEqual(plan.matched, [
    {
      practitioner: {
        id: existing!.id,
        name: known.toUpperCase(),
        specialty: null,
        active: true,
        userId: null,
      },
      names: [known],
      appointments: knownCount,
    },
  ]);
  t.deepEqual(
    plan.created.map((entry) => [entry.name, entry.appointments]),
    [...counts].filter(([id]) => id !== known).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
  t.is(plan.untracked, 0);
  t.is(
    Number((await w.knex('appointments_practitioner').count('* as n'))[0]!.n),
    1,
    'the preview wrote nothing',
  );

  await execute(w, job.id);
  t.is(Number((await w.knex('appointments_practitioner').count('* as n'))[0]!.n), counts.size);
  t.is(
    Number(
      (await w.knex('appointments_appointment').where({ practitioner_id: existing!.id }).count('* as n'))[0]!
        .n,
    ),
    knownCount,
  );
  t.like(await clinicalCounts(w.knex), { appointments: [...counts.values()].reduce((a, b) => a + b, 0) });
});

test('a caller who may not read appointments gets no practitioner notice', async (t) => {
  const w = await world(t, { grants: { roles: { importer: ['migration_import.*'] } } });
  await addUser(w.knex, 'ivan', ['importer']);
  const token = (await signIn(w.base, 'ivan')).token;
  const job = await validate(
    w,
    (
      await createJob(w, await readFile(new URL('encounters.csv', EXPORT)), {
        format: 'synthea-encounters-csv',
      })
    ).id,
  );
  const preview = await call(w.base, 'POST', `/api/v1/migration_import/jobs/${job.id}/preview`, { token });
  t.is(preview.status, 200, preview.text);
  t.is((preview.body as { practitioners: unknown }).practitioners, null);
});

test('an old name made an alias of an existing practitioner before execute books with them, and creates no one', async (t) => {
  const w = await world(t);
  const counts = await providers();
  await execute(
    w,
    (
      await validate(
        w,
        (
          await createJob(w, await readFile(new URL('patients.csv', EXPORT)), {
            format: 'synthea-patients-csv',
          })
        ).id,
      )
    ).id,
  );
  const cho = await call(w.base, 'POST', '/api/v1/appointments/practitioners', {
    token: w.admin,
    json: { name: 'Dr. Mei Cho' },
  });
  const choId = (cho.body as { id: number }).id;
  const [old, oldCount] = [...counts].sort(([, a], [, b]) => b - a)[0]!;
  const job = await validate(
    w,
    (
      await createJob(w, await readFile(new URL('encounters.csv', EXPORT)), {
        format: 'synthea-encounters-csv',
      })
    ).id,
  );
  const first = ((await w.api('POST', `/jobs/${job.id}/preview`)).body as { practitioners: Plan })
    .practitioners;
  t.true(first.created.some((entry) => entry.name === old));

  const alias = await call(w.base, 'POST', `/api/v1/appointments/practitioners/${choId}/aliases`, {
    token: w.admin,
    json: { name: old },
  });
  t.is(alias.status, 201, alias.text);
  const second = ((await w.api('POST', `/jobs/${job.id}/preview`)).body as { practitioners: Plan })
    .practitioners;
  t.like(second.matched[0], {
    practitioner: { id: choId, name: 'Dr. Mei Cho' },
    names: [old],
    appointments: oldCount,
  });
  t.is(second.created.length, counts.size - 1);

  await execute(w, job.id);
  t.is(
    Number(
      (await w.knex('appointments_appointment').where({ practitioner_id: choId }).count('* as n'))[0]!.n,
    ),
    oldCount,
  );
  t.is(await w.knex('appointments_practitioner').where({ name: old }).first(), undefined);
  t.is(Number((await w.knex('appointments_practitioner').count('* as n'))[0]!.n), counts.size);
});
