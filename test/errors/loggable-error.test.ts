/**
 * A database error logged by Ward keeps its code, constraint, table and routine and loses every
 * value PostgreSQL quoted in its message or put in its DETAIL: errors forced on a real server,
 * logged through Ward's serializers, and through the API's error handler as a 500.
 */
import test from 'ava';
import fc from 'fast-check';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { serve } from '../../src/api/respond.ts';
import { requestContext } from '../../src/api/request-context.ts';
import { WardError } from '../../src/errors/ward-error.ts';
import { loggableError, redactQuoted } from '../../src/errors/loggable-error.ts';
import { LOG_SERIALIZERS } from '../../src/logger.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/connection.ts';
import { scratchDir } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';

const VALUES = ['Quilla', 'MRN-LOG-7731', 'Abernathy', '99999999999', 'Kestrelmoor', '1961-02-30'];

function capture() {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info', serializers: LOG_SERIALIZERS },
    { write: (line: string) => void lines.push(line) },
  );
  return { logger, lines };
}

/** A table on Ward's own connection (openDatabase), as the backend's routes reach it. */
async function patientTable(t: Parameters<typeof testDatabase>[0]) {
  const { url } = await testDatabase(t);
  const knex = await openDatabase(loadConfig({ DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir() }));
  t.teardown(() => knex.destroy());
  await knex.raw(`create table patient (
    id int primary key,
    mrn text constraint patient_mrn_unique unique,
    family_name text not null,
    born date,
    age int constraint patient_age_range check (age between 0 and 150))`);
  await knex('patient').insert({ id: 1, mrn: 'MRN-LOG-7731', family_name: 'Abernathy', age: 40 });
  return knex;
}

test('quoted values and byte sequences go; quoted identifiers of the error stay', (t) => {
  t.is(
    redactQuoted('invalid input syntax for type integer: "Quilla"', new Set()),
    'invalid input syntax for type integer: "…"',
  );
  t.is(
    redactQuoted(
      'duplicate key value violates unique constraint "patient_mrn_unique"',
      new Set(['patient_mrn_unique']),
    ),
    'duplicate key value violates unique constraint "patient_mrn_unique"',
  );
  t.is(
    redactQuoted('invalid byte sequence for encoding "UTF8": 0xe9 0x20', new Set()),
    'invalid byte sequence for encoding "…": 0x…',
  );
  t.is(
    redactQuoted('invalid input syntax for type integer: "5"Smith"', new Set()),
    'invalid input syntax for type integer: "…"',
    'a quote inside the value, which the server does not escape',
  );
  t.is(
    redactQuoted(
      'insert on table "visit" violates foreign key constraint "visit_fk" of "O"Brien"',
      new Set(['visit', 'visit_fk']),
    ),
    'insert on table "visit" violates foreign key constraint "visit_fk" of "…"',
  );
  t.is(redactQuoted('unterminated "Abernathy', new Set()), 'unterminated "…');
  fc.assert(
    fc.property(
      fc.string().filter((value) => !value.includes('\n')),
      (value) =>
        redactQuoted(`invalid input syntax for type date: "${value}"`, new Set()) ===
        'invalid input syntax for type date: "…"',
    ),
  );
  fc.assert(
    fc.property(fc.string(), fc.string(), (before, value) => {
      const quoted = value.replaceAll('"', '""');
      const text = redactQuoted(`${before.replaceAll('"', '')} "${quoted}" after`, new Set());
      return !text.includes(`"${quoted}"`) || quoted === '…';
    }),
  );
});

test('errors forced on PostgreSQL are logged with code, table, constraint and routine, never a value', async (t) => {
  const knex = await patientTable(t);
  const forced = [
    knex('patient').insert({ id: 2, mrn: 'MRN-LOG-7731', family_name: 'Quilla' }),
    knex('patient').insert({ id: 'Quilla', family_name: 'Abernathy' }),
    knex('patient').insert({ id: 3, family_name: 'Abernathy', age: '99999999999' }),
    knex('patient').insert({ id: 4, family_name: 'Abernathy', born: '1961-02-30' }),
    knex('patient').insert({ id: 5, mrn: 'Kestrelmoor', family_name: null }),
    knex('patient').insert({ id: 6, family_name: 'Quilla', age: 151 }),
    knex.raw('select ?::date', ['Kestrelmoor']),
  ];
  const { logger, lines } = capture();
  const codes: string[] = [];
  for (const query of forced) {
    const error = await t.throwsAsync(query);
    codes.push((error as unknown as { code: string }).code);
    logger.error({ err: error }, 'request failed');
    logger.error(
      { err: new WardError('wrapped', 'a step failed', 'see the cause', { cause: error }) },
      'wrapped',
    );
  }
  t.deepEqual(codes, ['23505', '22P02', '22003', '22008', '23502', '23514', '22007']);
  for (const line of lines) for (const value of VALUES) t.false(line.includes(value), `${value} in ${line}`);
  const logged = lines.map((line) => (JSON.parse(line) as { err: Record<string, unknown> }).err);
  t.like(logged[0], {
    code: '23505',
    table: 'patient',
    constraint: 'patient_mrn_unique',
    routine: '_bt_check_unique',
    type: 'DatabaseError',
  });
  t.is(
    logged[0]!.message,
    'insert into "patient" ("family_name", "id", "mrn") values ($1, $2, $3) - duplicate key value violates unique constraint "patient_mrn_unique"',
    'the SQL as Ward wrote it (placeholders), the server message with its identifiers',
  );
  t.false('detail' in logged[0]!);
  t.regex(logged[2]!.message as string, /invalid input syntax for type integer: "…"$/);
  t.like(logged[8]!, { code: '23502', table: 'patient', column: 'family_name' });
  t.regex(
    logged[8]!.message as string,
    /null value in column "family_name" of relation "patient" violates not-null constraint/,
  );
  t.like(logged[10]!, { code: '23514', constraint: 'patient_age_range' });
  t.regex(
    logged[3]!.stack as string,
    /caused by: error: .*invalid input syntax for type integer: "…"\n\s+at /,
  );
});

test('the original error is not changed, and an error with no database error in it is logged as it is', async (t) => {
  const knex = await patientTable(t);
  const error = (await t.throwsAsync(knex('patient').insert({ id: 'Quilla', family_name: 'x' }))) as Error & {
    detail?: string;
  };
  const message = error.message;
  loggableError(new WardError('wrapped', 'failed', 'hint', { cause: error }));
  t.is(error.message, message);
  t.true(message.includes('Quilla'), 'the error keeps its value for the code that handles it');
  const plain = new Error('a bug');
  t.is(loggableError(plain), plain);
});

test("a 500's log line names the database error without the value that caused it", async (t) => {
  const knex = await patientTable(t);
  const { logger, lines } = capture();
  const context = requestContext({ logger, observe: null });
  const listener = serve(
    (ctx) =>
      context(ctx, async () => {
        await knex('patient').insert({ id: 9, mrn: 'MRN-LOG-7731', family_name: 'Quilla' });
      }),
    { proxy: false },
    () => {},
  );
  const server = createServer(listener).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/patients`);
  t.is(answer.status, 500);
  t.false((await answer.text()).includes('MRN-LOG-7731'));
  const [line] = lines.filter((text) => text.includes('request failed'));
  t.truthy(line);
  for (const value of VALUES) t.false(line!.includes(value), `${value} in ${line}`);
  t.like((JSON.parse(line!) as { err: object }).err, { code: '23505', constraint: 'patient_mrn_unique' });
});
