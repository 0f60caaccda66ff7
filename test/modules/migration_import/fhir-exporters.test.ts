/**
 * FHIR as exporters write it: attachments inline in `data`, Encounters, every Bundle type a
 * server or exporter hands out, `urn:uuid:` references to entries whose id differs. Documents are
 * held to the documents module's own title and content type rules, wherever their bytes are.
 */
import { createHash } from 'node:crypto';
import test from 'ava';
import fc from 'fast-check';
import { isBase64 } from '../../../modules/migration_import/lib/checks.ts';
import { importItems } from '../../../modules/migration_import/lib/index.ts';
import { sdk } from '../../../src/sdk/runtime.ts';
import { bytes, collect, recordsOf, warningsOf, rules } from './helpers.ts';

const { text } = sdk;
const NOTE = 'History of present illness: none.\n';
const base64 = Buffer.from(NOTE).toString('base64');
const sha1 = createHash('sha1').update(NOTE).digest();

const patient = {
  resourceType: 'Patient',
  id: 'p1',
  name: [{ family: 'Lee', given: ['Wei'] }],
  birthDate: '1990-01-02',
};

function note(attachment: object, extra: object = {}) {
  return {
    resourceType: 'DocumentReference',
    id: 'd1',
    type: { coding: [{ display: 'History and physical note' }] },
    subject: { reference: 'urn:uuid:p1' },
    content: [{ attachment }],
    ...extra,
  };
}

const bundle = (type: string, ...resources: object[]) =>
  JSON.stringify({
    resourceType: 'Bundle',
    type,
    entry: resources.map((resource) => ({
      fullUrl: `urn:uuid:${(resource as { id?: string }).id ?? 'x'}`,
      resource,
      request: { method: 'POST', url: (resource as { resourceType: string }).resourceType },
    })),
  });

const read = (json: string, maxDocumentBytes?: number) =>
  collect(importItems('fhir-json', bytes(json), { rules, text, maxDocumentBytes }));

test('an inline attachment is decoded and checked: hashes and size come from its bytes, under an inline reference', async (t) => {
  const items = await read(
    bundle('transaction', patient, note({ contentType: 'text/plain; charset=utf-8', data: base64 })),
  );
  t.deepEqual(warningsOf(items), []);
  t.deepEqual(recordsOf(items)[1], {
    kind: 'document',
    row: 2,
    record: {
      sourceId: 'd1',
      patientSourceId: 'p1',
      title: 'History and physical note',
      contentType: 'text/plain; charset=utf-8',
      sha1: sha1.toString('hex'),
      sha256: createHash('sha256').update(NOTE).digest('hex'),
      size: Buffer.byteLength(NOTE),
      binaryRef: 'inline:d1',
    },
  });
});

test('inline content that is not base64, over the size limit, or unlike its declared hash or size is an error', async (t) => {
  const codes = async (attachment: object, limit?: number) =>
    warningsOf(await read(bundle('collection', patient, note(attachment)), limit)).map(
      (warning) => `${warning.code} ${warning.field}`,
    );
  t.deepEqual(await codes({ data: 'not base64!' }), ['bad_base64 /content/0/attachment/data']);
  t.deepEqual(await codes({ data: base64 }, 10), ['content_too_large /content/0/attachment/data']);
  t.deepEqual(await codes({ data: base64, hash: Buffer.alloc(20).toString('base64') }), [
    'binary_mismatch /content/0/attachment/hash',
  ]);
  t.deepEqual(await codes({ data: base64, size: 3 }), ['binary_mismatch /content/0/attachment/size']);
  t.deepEqual(
    await codes({ data: base64, hash: sha1.toString('base64'), size: Buffer.byteLength(NOTE) }),
    [],
  );
  // Wrapped over lines, as base64Binary may be.
  t.deepEqual(await codes({ data: base64.replace(/(.{20})/g, '$1\n') }), []);
});

test('an inline document of several MB, well under the size limit, is read whole', async (t) => {
  const scan = Buffer.alloc(6 * 1024 * 1024, 'scan of a referral letter ');
  const items = await read(
    bundle('collection', patient, note({ contentType: 'application/pdf', data: scan.toString('base64') })),
  );
  t.deepEqual(warningsOf(items), []);
  t.like(recordsOf(items)[1]?.record, { size: scan.length, binaryRef: 'inline:d1' });
});

test('property: isBase64 accepts whatever Node encodes as base64, and refuses bad lengths, padding and letters', (t) => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), (content) => {
      t.true(isBase64(Buffer.from(content).toString('base64')));
    }),
  );
  for (const bad of ['A', 'AB=', '====', 'A===', 'AB=C', 'ab cd', 'ab\u00e9d']) t.false(isBase64(bad), bad);
});

test("title and content type are held to the documents upload's rules, for inline and uploaded files alike", async (t) => {
  const problems = async (attachment: object) =>
    warningsOf(await read(bundle('batch', patient, note(attachment)))).map((warning) => [
      warning.code,
      warning.message,
    ]);
  t.deepEqual(await problems({ url: 'a.txt', contentType: 'text/plain\r\nX-Evil: 1' }), [
    [
      'invalid_content_type',
      `"text/plain\\r\\nX-Evil: 1" is not a media type, which an upload to Ward's documents is refused for too; fix it in the source`,
    ],
  ]);
  const [[code, message]] = (await problems({ data: base64, title: 'Note\u0007' })) as [[string, string]];
  t.is(code, 'invalid_title');
  t.regex(message, /^the title contains U\+0007/);
  t.deepEqual(await problems({ url: 'a.txt', title: 'x'.repeat(256) }), [
    [
      'invalid_title',
      "the title is longer than 255 characters, which an upload to Ward's documents is refused for too; fix it in the source",
    ],
  ]);
  // No content type is application/octet-stream, as for an upload.
  const items = await read(bundle('batch', patient, note({ url: 'a.txt' })));
  t.like(recordsOf(items)[1], { record: { contentType: 'application/octet-stream', binaryRef: 'a.txt' } });
});

test('an Encounter is a past appointment: period, subject, the performing practitioner, reason or else type', async (t) => {
  const encounter = {
    resourceType: 'Encounter',
    id: 'e1',
    status: 'finished',
    type: [{ text: 'General examination of patient (procedure)' }],
    subject: { reference: 'urn:uuid:p1' },
    participant: [
      {
        individual: {
          reference: 'Practitioner?identifier=http://hl7.org/fhir/sid/us-npi|9999939119',
          display: 'Dr. Kelsie51 Strosin214',
        },
      },
    ],
    period: { start: '2014-07-10T00:43:38-04:00', end: '2014-07-10T00:58:38-04:00' },
  };
  const items = await read(bundle('searchset', patient, encounter));
  t.deepEqual(warningsOf(items), []);
  t.deepEqual(recordsOf(items)[1], {
    kind: 'appointment',
    row: 2,
    record: {
      sourceId: 'e1',
      patientSourceId: 'p1',
      practitionerName: 'Dr. Kelsie51 Strosin214',
      start: '2014-07-10T04:43:38.000Z',
      end: '2014-07-10T04:58:38.000Z',
      status: 'fulfilled',
      reason: 'General examination of patient (procedure)',
    },
  });
  const inProgress = await read(
    bundle('collection', patient, { ...encounter, status: 'in-progress', period: {} }),
  );
  t.deepEqual(
    warningsOf(inProgress).map((warning) => `${warning.code} ${warning.field}`),
    ['missing_field /period/start', 'missing_field /period/end', 'unknown_status /status'],
  );
});

test('urn:uuid references reach the entry with that fullUrl even when its id differs', async (t) => {
  const json = JSON.stringify({
    resourceType: 'Bundle',
    type: 'transaction',
    entry: [
      { fullUrl: 'urn:uuid:0b8c7c1e-0000-4000-8000-000000000001', resource: { ...patient, id: 'MRN-1' } },
      {
        fullUrl: 'urn:uuid:0b8c7c1e-0000-4000-8000-000000000002',
        resource: note(
          { url: 'a.txt' },
          { subject: { reference: 'urn:uuid:0b8c7c1e-0000-4000-8000-000000000001' } },
        ),
      },
    ],
  });
  const items = await read(json);
  t.deepEqual(warningsOf(items), []);
  t.like(recordsOf(items)[1], { record: { patientSourceId: 'MRN-1' } });
});

test('a transaction entry that is a request without a resource is counted as skipped, not an error', async (t) => {
  const json = JSON.stringify({
    resourceType: 'Bundle',
    type: 'transaction',
    entry: [{ resource: patient }, { request: { method: 'DELETE', url: 'Patient/9' } }],
  });
  const items = await read(json);
  t.deepEqual(
    warningsOf(items).map((warning) => [warning.code, warning.severity, warning.message]),
    [
      [
        'fhir_unsupported_resource',
        'info',
        '1 "DELETE request without a resource" resource was skipped (first on row 2); only Patient, Appointment, Encounter and DocumentReference are imported',
      ],
    ],
  );
  t.is(recordsOf(items).length, 1);
});
