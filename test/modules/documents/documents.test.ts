/**
 * The documents module over HTTP: streaming upload and download of a binary holding every byte
 * value, the content-addressed path (never a client-chosen one), one file for identical content,
 * metadata, the per-patient list, and the 4xx answers for bad uploads and unknown ids.
 */
import { createHash } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { api, clinic, errorOf, insertPatients } from '../helpers.ts';

const PREFIX = '/api/v1/documents';
/** Every byte value, 64 KiB and a bit, so the stream spans several chunks. */
const ALL_BYTES = Buffer.from(Array.from({ length: 65536 * 3 + 17 }, (_, i) => (i * 31 + (i >> 8)) % 256));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function world(t: ExecutionContext) {
  const running = await clinic(t);
  const [patient, other] = await insertPatients(running.knex, [
    { mrn: 'A1', family_name: 'Ada', given_name: 'A' },
    { mrn: 'B1', family_name: 'Bo', given_name: 'B' },
  ]);
  const token = running.as('clinician');
  const upload = (
    bytes: Buffer,
    options: { patient?: number | string; query?: string; headers?: Record<string, string> } = {},
  ) =>
    api(
      running.base,
      token,
      'POST',
      `${PREFIX}/patients/${options.patient ?? patient}/documents${options.query ?? ''}`,
      {
        body: bytes,
        headers: {
          'content-type': 'application/octet-stream',
          'x-document-title': 'scan.bin',
          ...options.headers,
        },
      },
    );
  return { ...running, token, patient: patient as number, other: other as number, upload };
}

/** Every file under the storage directory, relative to it. */
async function stored(storage: string): Promise<string[]> {
  const entries = await readdir(storage, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(storage, path.join(entry.parentPath, entry.name)))
    .sort();
}

interface DocumentBody {
  id: number;
  patientId: number;
  title: string;
  contentType: string;
  sha256: string;
  size: number;
  createdAt: string;
}

test('upload then download: every byte value comes back, with its type, as an attachment', async (t) => {
  const { base, token, patient, upload } = await world(t);
  const created = await upload(ALL_BYTES, {
    headers: { 'content-type': 'image/tiff', 'x-document-title': 'Referral letter.tiff' },
  });
  t.is(created.status, 201, created.text);
  const document = created.body as DocumentBody;
  t.like(document, {
    patientId: patient,
    title: 'Referral letter.tiff',
    contentType: 'image/tiff',
    sha256: sha256(ALL_BYTES),
    size: ALL_BYTES.length,
  });
  t.is(created.headers.get('location'), `${PREFIX}/documents/${document.id}`);
  t.deepEqual((await api(base, token, 'GET', `${PREFIX}/documents/${document.id}`)).body, document);

  const response = await fetch(`${base}${PREFIX}/documents/${document.id}/content`, {
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(response.status, 200);
  t.deepEqual(Buffer.from(await response.arrayBuffer()), ALL_BYTES);
  t.is(response.headers.get('content-type'), 'image/tiff');
  t.is(response.headers.get('content-length'), String(ALL_BYTES.length));
  t.is(response.headers.get('content-disposition'), 'attachment; filename="Referral letter.tiff"');
  t.is(response.headers.get('content-security-policy'), "sandbox; default-src 'none'");
  t.is(response.headers.get('x-content-type-options'), 'nosniff');
});

test('the file lands at documents/<xx>/<sha256> whatever the title says; no client path is used', async (t) => {
  const { storage, upload } = await world(t);
  const hash = sha256(ALL_BYTES);
  const evil = '../../../../tmp/ward-owned';
  const created = await upload(ALL_BYTES, { query: `?title=${encodeURIComponent(evil)}` });
  t.is(created.status, 201, created.text);
  t.is((created.body as DocumentBody).title, evil, 'kept as a title, nothing more');
  t.deepEqual(await stored(storage), [path.join('documents', hash.slice(0, 2), hash)]);
});

test('identical content uploaded twice: two documents, one file', async (t) => {
  const { storage, upload, other } = await world(t);
  const first = (await upload(ALL_BYTES)).body as DocumentBody;
  const second = await upload(ALL_BYTES, { patient: other, headers: { 'x-document-title': 'copy' } });
  t.is(second.status, 201);
  t.like(second.body, { sha256: first.sha256, size: first.size, patientId: other, title: 'copy' });
  t.not((second.body as DocumentBody).id, first.id);
  t.is((await stored(storage)).length, 1);
});

test('a title beyond ASCII travels percent-encoded in the header, or in ?title=, and is NFC either way', async (t) => {
  const { base, token, upload } = await world(t);
  const title = 'Überweisung – Ärztin.pdf';
  const byHeader = await upload(Buffer.from('%PDF'), {
    headers: { 'x-document-title': encodeURIComponent(title) },
  });
  t.like(byHeader.body, { title, contentType: 'application/octet-stream' });
  const decomposed = await upload(Buffer.from('%PDF'), {
    headers: { 'x-document-title': encodeURIComponent(title.normalize('NFD')) },
  });
  t.like(decomposed.body, { title }, 'a header title is NFC, as a ?title= one is');
  const byQuery = await upload(Buffer.from('%PDF'), {
    query: `?title=${encodeURIComponent(title)}&contentType=application%2Fpdf`,
    headers: { 'x-document-title': 'ignored' },
  });
  t.like(byQuery.body, { title, contentType: 'application/pdf' });
  const content = await api(
    base,
    token,
    'GET',
    `${PREFIX}/documents/${(byQuery.body as DocumentBody).id}/content`,
  );
  t.is(
    content.headers.get('content-disposition'),
    // The plain filename is ASCII: accents dropped, _ for any other character beyond ASCII.
    `attachment; filename="Uberweisung _ Arztin.pdf"; filename*=UTF-8''${encodeURIComponent(title)}`,
  );
  t.is(content.headers.get('content-type'), 'application/pdf');
});

test("a patient's documents are listed newest first, paginated", async (t) => {
  const { base, token, patient, other, upload } = await world(t);
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) ids.push(((await upload(Buffer.from(`file ${i}`))).body as DocumentBody).id);
  await upload(Buffer.from('elsewhere'), { patient: other });
  const list = `${PREFIX}/patients/${patient}/documents`;
  const first = (await api(base, token, 'GET', `${list}?limit=3`)).body as {
    items: DocumentBody[];
    nextCursor: string;
  };
  const second = (await api(base, token, 'GET', `${list}?limit=3&cursor=${first.nextCursor}`)).body as {
    items: DocumentBody[];
    nextCursor: string | null;
  };
  t.deepEqual(
    [...first.items, ...second.items].map((item) => item.id),
    ids.reverse(),
  );
  t.is(second.nextCursor, null);
  const offset = (await api(base, token, 'GET', `${list}?offset=4`)).body as { items: DocumentBody[] };
  t.deepEqual(
    offset.items.map((item) => item.id),
    [ids[4]],
  );
});

test('unknown patients and documents are 404, and an upload for an unknown patient stores nothing', async (t) => {
  const { base, token, storage, upload } = await world(t);
  for (const patient of ['999', 'x']) {
    const refused = await upload(ALL_BYTES, { patient });
    t.is(refused.status, 404);
    t.is(errorOf(refused).message, `there is no patient ${patient}`);
    t.is((await api(base, token, 'GET', `${PREFIX}/patients/${patient}/documents`)).status, 404);
  }
  t.deepEqual(await stored(storage), []);
  for (const id of ['999', 'x']) {
    for (const suffix of ['', '/content']) {
      const answer = await api(base, token, 'GET', `${PREFIX}/documents/${id}${suffix}`);
      t.is(answer.status, 404);
      t.is(errorOf(answer).message, `there is no document ${id}`);
    }
  }
});

test('content missing from storage is a 404 that says so', async (t) => {
  const { base, token, storage, upload } = await world(t);
  const { id } = (await upload(ALL_BYTES)).body as DocumentBody;
  await rm(path.join(storage, 'documents'), { recursive: true });
  const answer = await api(base, token, 'GET', `${PREFIX}/documents/${id}/content`);
  t.is(answer.status, 404);
  t.is(errorOf(answer).message, `there is no stored content of document ${id}`);
});

test('bad uploads are refused with the reason, and leave no row and no file', async (t) => {
  const { storage, upload, knex } = await world(t);
  const cases: Array<[Parameters<typeof upload>[1], number, string, string]> = [
    [{ headers: { 'x-document-title': '' } }, 400, 'invalid_upload', 'the upload has no title'],
    [{ headers: { 'x-document-title': '   ' } }, 400, 'invalid_upload', 'the upload has no title'],
    [
      { headers: { 'x-document-title': '100%' } },
      400,
      'invalid_upload',
      'the X-Document-Title header is not valid percent-encoding',
    ],
    [
      { query: `?title=${'t'.repeat(256)}` },
      400,
      'invalid_upload',
      'the title is longer than 255 characters',
    ],
    [
      { query: '?title=two%0Alines' },
      400,
      'invalid_upload',
      'the title contains U+000A LINE FEED (a control character) at character 4',
    ],
    [
      { headers: { 'x-document-title': 'two%0Alines' } },
      400,
      'invalid_upload',
      'the title contains U+000A LINE FEED (a control character) at character 4',
    ],
    [
      { headers: { 'x-document-title': encodeURIComponent('scan\u200B.pdf') } },
      400,
      'invalid_upload',
      'the title contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 5',
    ],
    [
      { query: `?title=${encodeURIComponent('scan\u200B.pdf')}` },
      400,
      'invalid_upload',
      'the title contains U+200B ZERO WIDTH SPACE (a zero-width character) at character 5',
    ],
    [{ headers: { 'content-type': 'pdf' } }, 400, 'invalid_upload', '"pdf" is not a media type'],
    [
      { headers: { 'content-encoding': 'gzip' } },
      415,
      'unsupported_media_type',
      'uploads are stored as sent, so they cannot be gzip-encoded',
    ],
    [
      { headers: { 'x-content-sha256': sha256(Buffer.from('other')) } },
      422,
      'checksum_mismatch',
      `the file's SHA-256 is ${sha256(ALL_BYTES)}, not the expected ${sha256(Buffer.from('other'))}`,
    ],
    [
      { headers: { 'x-content-sha256': 'abc' } },
      422,
      'invalid_checksum',
      'the expected SHA-256 "abc" is not 64 hex digits',
    ],
  ];
  for (const [options, status, code, message] of cases) {
    const answer = await upload(ALL_BYTES, options);
    t.is(answer.status, status, message);
    t.like(errorOf(answer), { code, message });
  }
  t.deepEqual(await knex('documents_document').select('id'), []);
  t.deepEqual(await stored(storage), []);
  const verified = await upload(ALL_BYTES, { headers: { 'x-content-sha256': sha256(ALL_BYTES) } });
  t.is(verified.status, 201);
});
