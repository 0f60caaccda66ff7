/**
 * The migrations that add patient search and its name order: on a real database, an install at
 * patients 1.1.0 holding rows is upgraded by `ward modules upgrade patients` and the restart,
 * which folds every row already stored (in batches), so that search finds them, and builds the
 * trigram and name indexes.
 */
import test from 'ava';
import { down } from '../../../modules/patients/migrations/20261127000000_add_patients_search.ts';
import { down as downNameOrder } from '../../../modules/patients/migrations/20261128000000_add_patients_name_order.ts';
import { authEnv, install } from '../../helpers/app.ts';
import { scratchDir, ward } from '../../helpers/cli.ts';
import { clinicDatabase } from '../helpers.ts';

const NAMES = [
  'patients/20261127000000_add_patients_search',
  'patients/20261128000000_add_patients_name_order',
];

test('an install at patients 1.1.0 is folded and indexed by `ward modules upgrade patients` and the restart', async (t) => {
  const { url, knex } = await clinicDatabase(t);
  // The state a clinic on 1.1.0 is in: no search columns, its rows stored as the old API wrote them.
  await knex.transaction(async (trx) => {
    await downNameOrder(trx);
    await down(trx);
  });
  await knex('knex_migrations').whereIn('name', NAMES).delete();
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
  t.regex(run.stdout, /~ patients +1\.1\.0 -> 1\.3\.0 +requested/);
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
  t.like(
    await knex('patients_patient').where({ mrn: 'OLD-0' }).first('family_fold', 'given_fold', 'search_rest'),
    {
      family_fold: 'obrienmuller',
      given_fold: 'jurgen',
      search_rest: '0brienmuller 0urgen old0 442079460000',
    },
  );
  const last = await knex('patients_patient')
    .where({ mrn: 'OLD-12000' })
    .first('search_text', 'family_fold', 'search_rest');
  t.like(last, {
    search_text: ' family12000 jurgen old12000',
    family_fold: 'family12000',
    search_rest: '0amily12000 0urgen old12000',
  });
  const indexes = (await knex('pg_indexes')
    .where({ tablename: 'patients_patient' })
    .pluck('indexdef')) as string[];
  for (const index of [
    'gin (search_text gin_trgm_ops)',
    'gin (search_rest gin_trgm_ops)',
    '(family_fold, given_fold, id)',
  ])
    t.true(
      indexes.some((definition) => definition.includes(index)),
      indexes.join('\n'),
    );
  t.like(await knex('core_module').where({ name: 'patients' }).first(), { version: '1.3.0' });
});
