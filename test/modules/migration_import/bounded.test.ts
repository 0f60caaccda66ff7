/**
 * Bounded resources: every value, every entry and every job's warnings have a cap, so a source up
 * to the size limit runs in bounded memory. A value or entry over its cap stops the read at once
 * (the rest of the file is not even read); warnings past the job's cap are counted, not stored,
 * and one warning sums them up.
 */
import test from 'ava';
import { readImport } from '../../../modules/migration_import/lib/index.ts';
import { bytes, collect, warningsOf } from './helpers.ts';
import { allWarnings, createJob, execute, validate, world } from './world.ts';

process.env.WARD_IMPORT_MAX_WARNINGS = '100';

/** `head`, then `size` characters of `fill`, then `tail`, in 64 KiB chunks; counts the chunks taken. */
function huge(head: string, fill: string, size: number, tail: string) {
  const counter = { chunks: 0 };
  async function* chunks() {
    const chunk = Buffer.from(fill.repeat(65_536 / fill.length));
    counter.chunks++;
    yield Buffer.from(head);
    for (let sent = 0; sent < size; sent += chunk.length) {
      counter.chunks++;
      yield chunk;
    }
    yield Buffer.from(tail);
  }
  return { source: chunks(), counter };
}

test('a 60 MB string stops the read at the value cap, after reading little more than the cap', async (t) => {
  const { source, counter } = huge(
    '{"resourceType":"Bundle","type":"collection","entry":[{"resource":{"resourceType":"Patient","id":"p","text":{"div":"',
    'x',
    60 << 20,
    '"}}}]}',
  );
  const items = await collect(readImport('fhir-json', source));
  t.deepEqual(
    warningsOf(items).map((warning) => warning.message),
    [`invalid JSON at line 1, column 116: a single value is longer than ${4 << 20} characters`],
  );
  t.true(counter.chunks < (4 << 20) / 65_536 + 4, `read ${counter.chunks} chunks`);
});

test('inline content is read up to twice the base64 of the largest document, no longer', async (t) => {
  const entry = (data: string) =>
    JSON.stringify({
      resourceType: 'Bundle',
      type: 'collection',
      entry: [
        { resource: { resourceType: 'DocumentReference', id: 'd', content: [{ attachment: { data } }] } },
      ],
    });
  const fits = await collect(
    readImport('fhir-json', bytes(entry('A'.repeat(40_000))), { maxDocumentBytes: 30_000 }),
  );
  t.deepEqual(warningsOf(fits), []);
  const over = await collect(
    readImport('fhir-json', bytes(entry('A'.repeat(90_000))), { maxDocumentBytes: 30_000 }),
  );
  t.regex(warningsOf(over)[0]!.message, /a single value is longer than 82\d{3} characters/);
});

test('an entry of many small values stops the read at the entry cap', async (t) => {
  const { source, counter } = huge(
    '{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Observation","component":[',
    '1,',
    8 << 20,
    '1]}}]}',
  );
  const items = await collect(readImport('fhir-json', source, { maxEntryChars: 1 << 20 }));
  t.is(warningsOf(items).length, 1);
  t.regex(warningsOf(items)[0]!.message, /an entry is longer than 1048576 characters$/);
  t.true(counter.chunks < (1 << 20) / 65_536 + 4, `read ${counter.chunks} chunks`);
});

test('a job keeps at most WARD_IMPORT_MAX_WARNINGS warnings per phase, and one more that counts the rest', async (t) => {
  const w = await world(t);
  // 150 documents whose files were never uploaded: 150 binary_missing warnings, then 150 failures.
  const lines = [
    JSON.stringify({
      resourceType: 'Patient',
      id: 'p1',
      name: [{ family: 'Doe', given: ['Jo'] }],
      birthDate: '1990-01-01',
    }),
    ...Array.from({ length: 150 }, (_, index) =>
      JSON.stringify({
        resourceType: 'DocumentReference',
        id: `d${index}`,
        subject: { reference: 'Patient/p1' },
        content: [
          { attachment: { url: `scan-${index}.pdf`, title: 'Scan', contentType: 'application/pdf' } },
        ],
      }),
    ),
  ];
  const job = await validate(w, (await createJob(w, `${lines.join('\n')}\n`, { format: 'fhir-ndjson' })).id);
  t.is(job.state, 'validated');
  t.deepEqual(job.counts.warnings, { error: 0, warning: 150, info: 0 });
  const validated = await allWarnings(w, job.id);
  t.is(validated.length, 101);
  t.like(validated[100], {
    row: 102,
    code: 'warnings_capped',
    severity: 'warning',
    message:
      '50 more warnings (0 errors, 50 warnings, 0 info) from row 102 on were not recorded: a job keeps at most 100 (WARD_IMPORT_MAX_WARNINGS); the ones above likely share their cause, fix it and try again',
  });

  const executed = await execute(w, job.id);
  t.like(executed.results.document, { failed: 150 });
  const failures = await allWarnings(w, job.id, 'severity=error');
  t.is(failures.length, 101);
  t.like(failures[100], { code: 'warnings_capped', severity: 'error' });
  t.regex(failures[100]!.message, /^50 more warnings \(50 errors, 0 warnings, 0 info\)/);
});

test('an entry of many empty objects stops the read at the cap on values, naming it', async (t) => {
  const { source, counter } = huge(
    '{"resourceType":"Bundle","entry":[{"resource":{"resourceType":"Observation","component":[',
    '{},',
    8 << 20,
    '{}]}}]}',
  );
  const items = await collect(readImport('fhir-json', source));
  t.deepEqual(
    warningsOf(items).map((warning) => warning.message),
    [`invalid JSON at line 1, column 3000078: an entry holds more than 1000000 values`],
  );
  t.true(counter.chunks < 3_000_003 / 65_535 + 4, `read ${counter.chunks} chunks`);
  const line = await collect(
    readImport('fhir-ndjson', bytes('[{},{},{},{}]\n{"resourceType":"Patient"}\n'), { maxEntryValues: 3 }),
  );
  t.regex(
    warningsOf(line)[0]!.message,
    /^invalid JSON at line 1, column 8: the JSON holds more than 3 values/,
  );
});

/** Runs `work` while counting turns of the event loop (`setImmediate` callbacks) until it ends. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let done = false;
  const turn = () => {
    turns++;
    if (!done) setImmediate(turn);
  };
  setImmediate(turn);
  try {
    await work();
  } finally {
    done = true;
  }
  return turns;
}

test('a large NDJSON line, or Bundle, arriving in one chunk is parsed in slices, letting the event loop run between them', async (t) => {
  const patient = {
    resourceType: 'Patient',
    id: 'p',
    name: [{ family: 'Doe', given: ['Jo'] }],
    birthDate: '1990-01-01',
    extension: Array.from({ length: 100_000 }, (_, index) => ({ url: `x${index}`, valueString: 'a\\"b' })),
  };
  const line = JSON.stringify(patient);
  t.true(line.length > 2_000_000, `${line.length} characters`);
  let items: unknown[] = [];
  const turns = await turnsDuring(async () => {
    items = await collect(readImport('fhir-ndjson', bytes(`${line}\n`)));
  });
  t.deepEqual(warningsOf(items as never), []);
  t.true(turns >= line.length / 65_536 / 2, `${turns} turns of the event loop for ${line.length} characters`);

  const bundle = JSON.stringify({
    resourceType: 'Bundle',
    type: 'collection',
    entry: [{ resource: patient }],
  });
  const bundleTurns = await turnsDuring(() => collect(readImport('fhir-json', bytes(bundle))));
  t.true(bundleTurns >= bundle.length / 65_536 / 2, `${bundleTurns} turns of the event loop`);
});
