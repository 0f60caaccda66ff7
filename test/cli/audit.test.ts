/** `ward audit` through the real bin/ward: filters, the table, --json, exports, and bad flags. */
import test, { type ExecutionContext } from 'ava';
import { AUTH_MODULES, addUser, installedDatabase } from '../helpers/app.ts';
import { insertAuditRows, type TestAuditRow } from '../helpers/audit.ts';
import { parseJson, scratchDir, ward } from '../helpers/cli.ts';

async function setup(t: ExecutionContext) {
  const { url, knex } = await installedDatabase(t);
  const alice = await addUser(knex, 'alice', ['admin']);
  const rows: TestAuditRow[] = [
    {
      at: new Date('2026-11-01T08:00:00Z'),
      actor: 'cli:root',
      action: 'module.install',
      module: 'base',
      kind: 'module',
      record_id: 'patients',
    },
    {
      at: new Date('2026-11-02T09:00:00Z'),
      actor: `user:${alice}:session:ab12`,
      user_id: alice,
      action: 'record.read',
      module: 'patients',
      kind: 'patient',
      record_id: '42',
      patient_id: '42',
      client: '10.0.0.5',
    },
    {
      at: new Date('2026-11-03T10:00:00Z'),
      actor: `user:${alice}:token:3`,
      user_id: alice,
      action: 'record.update',
      module: 'patients',
      kind: 'patient',
      record_id: '42',
      patient_id: '42',
      detail: { changes: { phone: ['1', '2'] } },
    },
    {
      at: new Date('2026-11-04T11:00:00Z'),
      actor: 'job:7',
      action: 'record.read',
      module: 'documents',
      kind: 'document',
      record_id: '9',
      patient_id: '43',
    },
    {
      at: new Date('2026-11-05T12:00:00Z'),
      actor: 'anonymous',
      action: 'auth.sign_in_failed',
      outcome: 'refused',
      client: '10.0.0.9',
      detail: { code: 'bad_credentials' },
    },
  ];
  const ids = await insertAuditRows(knex, rows);
  const env = {
    DATABASE_URL: url,
    WARD_STORAGE_DIR: await scratchDir('ward-audit-'),
    WARD_MODULE_PATHS: AUTH_MODULES,
  };
  return { knex, env, ids, alice };
}

test('ward audit --patient prints every access to the patient as a table, newest first', async (t) => {
  const { env, ids, alice } = await setup(t);
  const run = await ward(['audit', '--patient', '42'], env);
  t.is(run.code, 0, run.stderr);
  const lines = run.stdout.trimEnd().split('\n');
  t.regex(lines[0] ?? '', /^ID +TIME +ACTOR +ACTION +OUTCOME +RECORD +PATIENT +CLIENT$/);
  t.is(lines.length, 3);
  t.regex(
    lines[1] ?? '',
    new RegExp(
      `^${ids[2]} +2026-11-03T10:00:00.000Z +alice \\(user:${alice}:token:3\\) +record.update +ok +patients/patient 42 +42 +-$`,
    ),
  );
  t.regex(lines[2] ?? '', new RegExp(`^${ids[1]} .* record.read .* 10.0.0.5$`));
});

test('ward audit --actor takes a username or an actor; --action a family; --since and --until a range', async (t) => {
  const { env, ids } = await setup(t);
  const ofAlice = parseJson<{ events: Array<{ id: string }>; more: boolean }>(
    await ward(['audit', '--actor', 'alice', '--json'], env),
  );
  t.deepEqual(
    ofAlice.events.map((event) => event.id),
    [ids[2], ids[1]],
  );
  t.false(ofAlice.more);
  const ofJob = parseJson<{ events: Array<{ id: string }> }>(
    await ward(['audit', '--actor', 'job:7', '--json'], env),
  );
  t.deepEqual(
    ofJob.events.map((event) => event.id),
    [ids[3]],
  );
  const records = parseJson<{ events: Array<{ id: string }> }>(
    await ward(
      ['audit', '--action', 'record', '--since', '2026-11-03', '--until', '2026-11-04T11:00:00Z', '--json'],
      env,
    ),
  );
  t.deepEqual(
    records.events.map((event) => event.id),
    [ids[2]],
  );
  const newest = await ward(['audit', '--limit', '2'], env);
  t.is(newest.code, 0, newest.stderr);
  t.regex(newest.stdout, /The newest 2 shown; older events match too/);
  t.is((await ward(['audit', '--patient', 'nobody'], env)).stdout, 'No audit events match.\n');
});

test('ward audit --format exports NDJSON events and FHIR AuditEvents to stdout', async (t) => {
  const { env, ids } = await setup(t);
  // Only the rows written above: installing the modules left rows of its own, today.
  const ndjson = await ward(['audit', '--format', 'ndjson', '--until', '2026-11-06'], env);
  t.is(ndjson.code, 0, ndjson.stderr);
  const events = ndjson.stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { id: string });
  t.deepEqual(
    events.map((event) => event.id),
    [...ids].reverse(),
  );
  const fhir = await ward(['audit', '--format', 'fhir', '--patient', '42', '--limit', '1'], env);
  t.is(fhir.code, 0, fhir.stderr);
  const resources = fhir.stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  t.is(resources.length, 1);
  t.like(resources[0], {
    resourceType: 'AuditEvent',
    id: ids[2],
    action: 'U',
    entity: [{ what: { reference: 'Patient/42' } }],
  });
});

test('bad flags exit 2 naming the flag, with a hint, and print nothing on stdout', async (t) => {
  const { env } = await setup(t);
  const cases: Array<[string[], RegExp]> = [
    [['--since', 'yesterday'], /--since is not an ISO 8601 date or date-time with an offset: "yesterday"/],
    [['--until', '2026-11-27T09:30:00'], /--until is not an ISO 8601 date/],
    [['--since', '2026-11-05', '--until', '2026-11-01'], /--until \(2026-11-01\) is not after since/],
    [['--format', 'csv'], /--format "csv" is not an export format/],
    [['--limit', '0'], /--limit must be an integer from 1 to 10000/],
    [['--action', 'Record Read'], /--action is not an action/],
    [['--actor', 'Not A Name'], /--actor is neither a username nor an actor/],
    [['--bogus'], /Nonexistent flag: --bogus/],
  ];
  for (const [args, message] of cases) {
    const run = await ward(['audit', ...args], env);
    t.is(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    t.regex(run.stderr, message, args.join(' '));
    t.regex(run.stderr, /\n.*(give|use|write|run|fix)/i, `a hint for ${args.join(' ')}`);
    t.is(run.stdout, '', args.join(' '));
  }
  const both = await ward(['audit', '--format', 'ndjson', '--json'], env);
  t.is(both.code, 2);
  t.like(parseJson(both), {
    error: { code: 'bad_usage', message: '--format and --json both choose the output' },
  });
  const unknown = await ward(['audit', '--actor', 'nobody'], env);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /there is no user nobody/);
});
