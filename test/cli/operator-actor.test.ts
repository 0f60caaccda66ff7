/**
 * What an operator's `ward` command writes is attributed to them: `ward users …`, `ward tokens …`
 * and the scheduling commands run their writes in a transaction whose `ward.actor` is
 * `cli:<os user>`. A trigger records what `current_setting('ward.actor', true)` reads in the
 * writing transaction, as an audit trigger would.
 */
import os from 'node:os';
import test from 'ava';
import { AUTH_MODULES, installedDatabase } from '../helpers/app.ts';
import { scratchDir, ward } from '../helpers/cli.ts';

const WATCHED = ['base_user', 'base_user_role', 'base_api_token', 'core_module'];

test('users, tokens and scheduling commands write as cli:<os user>', async (t) => {
  const { url, knex } = await installedDatabase(t);
  await knex.raw(`create table test_actor_capture (
    id bigserial primary key, tbl text not null, op text not null, actor text)`);
  await knex.raw(`create function test_capture_actor() returns trigger language plpgsql as $$
    begin
      insert into test_actor_capture (tbl, op, actor)
        values (tg_table_name, tg_op, current_setting('ward.actor', true));
      return null;
    end $$`);
  for (const table of WATCHED)
    await knex.raw(
      `create trigger test_capture after insert or update or delete on ?? for each row
        execute function test_capture_actor()`,
      [table],
    );
  const env = {
    DATABASE_URL: url,
    WARD_STORAGE_DIR: await scratchDir('ward-actor-'),
    WARD_MODULE_PATHS: AUTH_MODULES,
  };
  const must = async (args: string[]) => {
    const run = await ward(args, env);
    t.is(run.code, 0, `ward ${args.join(' ')}: ${run.stderr}`);
    return run.stdout.trim();
  };

  await must(['users', 'create', 'dana', '--role', 'admin']);
  await must(['users', 'revoke', 'dana', 'admin']);
  await must(['users', 'grant', 'dana', 'admin']);
  await must(['tokens', 'create', '--user', 'dana']);
  const { id: tokenId } = (await knex('base_api_token').first('id')) as { id: number };
  await must(['tokens', 'revoke', String(tokenId)]);
  await must(['users', 'disable', 'dana']);
  await must(['users', 'enable', 'dana']);
  await must(['modules', 'uninstall', 'intake']);

  const rows = (await knex('test_actor_capture').orderBy('id').select('tbl', 'op', 'actor')) as Array<{
    tbl: string;
    op: string;
    actor: string | null;
  }>;
  const operator = `cli:${os.userInfo().username}`;
  t.deepEqual(
    [...new Set(rows.map((row) => row.tbl))].sort(),
    [...WATCHED].sort(),
    'every watched table was written',
  );
  t.deepEqual(
    rows.filter((row) => row.actor !== operator),
    [],
    `every write is by ${operator}`,
  );
});
