import test from 'ava';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connection.ts';
import { scratchDir } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';

test("a failing query's error message carries the SQL with placeholders, never a bound value", async (t) => {
  const { url } = await testDatabase(t, { migrated: true });
  const knex = await openDatabase(loadConfig({ DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir() }));
  t.teardown(() => knex.destroy());
  const error = await t.throwsAsync(
    knex('no_such_table').where({ family_name: 'Doe-Confidential' }).select(),
  );
  t.regex(error.message, /no_such_table/);
  t.regex(error.message, /\$1|\?/);
  t.notRegex(error.message, /Doe-Confidential/);
});
