/**
 * The migration that brings rows stored before the API normalised text into NFC, on a real
 * database: rows are inserted decomposed (as the old API stored them), then the migration runs as
 * the migrator runs it, in a transaction. Two rows whose MRNs become one stop it, naming both.
 */
import test from 'ava';
import type { Knex } from 'knex';
import { up } from '../../../modules/patients/migrations/20261124000000_normalise_patients_text.ts';
import { authEnv, install } from '../../helpers/app.ts';
import { scratchDir, ward } from '../../helpers/cli.ts';
import { clinicDatabase, insertPatients } from '../helpers.ts';

const NAME = 'patients/20261124000000_normalise_patients_text';

const migrate = (knex: Knex) => knex.transaction((trx) => up(trx));

const all = (knex: Knex) =>
  knex('patients_patient')
    .orderBy('id')
    .select('id', 'mrn', 'family_name', 'given_name', 'phone', 'email', 'address', 'updated_at');

test('installing patients runs the migration', async (t) => {
  const { knex } = await clinicDatabase(t);
  const names = (await knex('knex_migrations').pluck('name')) as string[];
  t.true(names.includes(NAME), names.join(', '));
});

test('decomposed rows become NFC in every text column and the address; NFC rows are untouched', async (t) => {
  const { knex } = await clinicDatabase(t);
  const [decomposed, plain] = await insertPatients(knex, [
    {
      mrn: 'E\u0301-1',
      family_name: 'A\u030Aberg',
      given_name: 'Zoe\u0308',
      phone: '+33 e\u0301',
      email: 'zoe\u0308@example.org',
      address: JSON.stringify({ line: ['1 rue de l’E\u0301glise'], city: 'Ne\u0301ron' }),
    },
    { mrn: 'M-2', family_name: 'Lee', given_name: 'Min' },
  ]);
  const before = await all(knex);
  await migrate(knex);
  const after = await all(knex);
  t.like(after[0], {
    id: decomposed,
    mrn: '\u00C9-1',
    family_name: '\u00C5berg',
    given_name: 'Zo\u00EB',
    phone: '+33 \u00E9',
    email: 'zo\u00EB@example.org',
    address: { line: ['1 rue de l’\u00C9glise'], city: 'N\u00E9ron' },
  });
  t.deepEqual(after[1], before[1]);
  t.is(after[1]!.id, plain);
  await migrate(knex);
  t.deepEqual(await all(knex), after, 'a second run changes nothing');
});

test('two rows whose MRNs are one in NFC stop the migration, naming both ids and the MRN; nothing changes', async (t) => {
  const { knex } = await clinicDatabase(t);
  const ids = await insertPatients(knex, [
    { mrn: '\u00C9-7', family_name: 'Lee', given_name: 'Min' },
    { mrn: 'Zoe\u0308', family_name: 'A\u030Aberg', given_name: 'Zoe\u0308' },
    { mrn: 'E\u0301-7', family_name: 'Lee', given_name: 'Min' },
  ]);
  const before = await all(knex);
  const error = await t.throwsAsync(migrate(knex));
  t.is(
    error?.message,
    `patients: patients ${ids[0]} and ${ids[2]} have the MRN "\u00C9-7" once normalised to Unicode NFC; give all but one of them another MRN (or merge them), then restart Ward; nothing was changed`,
  );
  t.deepEqual(await all(knex), before);
});

test('an install at patients 1.0.0 holding decomposed rows is normalised by `ward modules upgrade patients` and the restart', async (t) => {
  const { url, knex } = await clinicDatabase(t);
  // The state a clinic on 1.0.0 is in: the migration never ran, and the API stored text as sent.
  await knex('knex_migrations').where({ name: NAME }).delete();
  await knex('core_module').where({ name: 'patients' }).update({ version: '1.0.0' });
  const [id] = await insertPatients(knex, [
    { mrn: 'E\u0301-9', family_name: 'A\u030Aberg', given_name: 'Zoe\u0308' },
  ]);
  const env = authEnv(url, await scratchDir());
  const run = await ward(['modules', 'upgrade', 'patients'], env);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, /~ patients +1\.0\.0 -> 1\.3\.0 +requested/);
  // What the restart does before it serves: the core migrations, then the scheduled plan.
  await install(url, []);
  t.like(await knex('patients_patient').where({ id }).first(), {
    mrn: '\u00C9-9',
    family_name: '\u00C5berg',
    given_name: 'Zo\u00EB',
  });
  t.like(await knex('core_module').where({ name: 'patients' }).first(), {
    state: 'installed',
    version: '1.3.0',
  });
  t.true(((await knex('knex_migrations').pluck('name')) as string[]).includes(NAME));
});

test('a value NFC lengthens past its column stops the migration, naming the row and the column; nothing changes', async (t) => {
  const { knex } = await clinicDatabase(t);
  // U+0958 is excluded from composition: NFC turns each into two code points, 40 into 80.
  const ids = await insertPatients(knex, [
    { mrn: '\u0958'.repeat(40), family_name: 'Lee', given_name: 'Min' },
    { mrn: 'E\u0301-8', family_name: 'Lee', given_name: 'Min' },
  ]);
  const before = await all(knex);
  const error = await t.throwsAsync(migrate(knex));
  t.is(
    error?.message,
    `patients: patient ${ids[0]} has a mrn longer than its 64 characters once normalised to Unicode NFC; shorten those values, then restart Ward; nothing was changed`,
  );
  t.deepEqual(await all(knex), before);
});
