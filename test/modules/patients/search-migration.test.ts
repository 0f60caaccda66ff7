/**
 * The migration that adds patient search: on a real database, an install at patients 1.1.0 holding
 * rows is upgraded by `ward modules upgrade patients` and the restart, which folds every row
 * already stored (in batches), so that search finds them, and builds the trigram index.
 */
import test from 'ava';
import { down } from '../../../modules/patients/migrations/20261127000000_add_patients_search.ts';
import { authEnv, install } from '../../helpers/app.ts';
import { scratchDir, ward } from '../../helpers/cli.ts';
import { clinicDatabase } from '../helpers.ts';

const NAME = 'patients/20261127000000_add_patients_search';

test('an install at patients 1.1.0 is folded and indexed by `ward modules upgrade patients` and the restart', async (t) => {
  const { url, knex } = await clinicDatabase(t);
  // The state a clinic on 1.1.0 is in: no search columns, its rows stored as the old API wrote them.
  await knex.transaction((trx) => down(trx));
  await knex('knex_migrations').where({ name: NAME }).delete();
  await knex('core_module').where({ name: 'patients' }).update({ version: '1.1.0' });
  const rows = Array.from({ length: 12_001 }, (_, i) => ({
    mrn: `OLD-${i}`,
    family_name: i === 0 ? "O'Brien-Müller" : `Family${i}`,
    given_name: 'Jürgen',
    phone: i === 0 ? '+44 20 7946 0000' : null,
  }));
  for (let start = 0; start < rows.length; start += 2000)
    await knex('patients_patient').insert(rows.slice(start, start + 2000));

  const run = await ward(['modules', 'upgrade', 'patients'], authEnv(url, await scratchDir()));
  t.is(run.code, 0, run.stderr);
  t.regex(run.stdout, /~ patients +1\.1\.0 -> 1\.2\.0 +requested/);
  await install(url, []);

  t.like(await knex('patients_patient').where({ mrn: 'OLD-0' }).first('search_text', 'name_key'), {
    search_text: ' obrienmuller jurgen old0 442079460000',
    name_key: 'obrienmuller|jurgen',
  });
  t.is(
    Number((await knex('patients_patient').where({ search_text: '' }).count('* as n').first())?.n),
    0,
    'every batch was folded',
  );
  const last = await knex('patients_patient').where({ mrn: 'OLD-12000' }).first('search_text');
  t.is(last?.search_text, ' family12000 jurgen old12000');
  const indexes = (await knex('pg_indexes')
    .where({ tablename: 'patients_patient' })
    .pluck('indexdef')) as string[];
  t.true(
    indexes.some((definition) => definition.includes('gin (search_text gin_trgm_ops)')),
    indexes.join('\n'),
  );
  t.like(await knex('core_module').where({ name: 'patients' }).first(), { version: '1.2.0' });
});
