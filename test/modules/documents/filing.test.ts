/**
 * Documents as people file them: the original file name kept for the download, a category to
 * file and filter by, the source and date of imported documents, a soft delete an admin can undo,
 * and an inline preview only for the types a browser shows safely.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { api, clinic, errorOf, insertPatients } from '../helpers.ts';

const PREFIX = '/api/v1/documents';
const PDF = Buffer.from('%PDF-1.4\n%\xE2\xE3\xCF\xD3\n', 'latin1');

interface DocumentBody {
  id: number;
  sha256: string;
  title: string;
  fileName: string;
  category: string;
  source: string;
  documentDate: string | null;
  deletedAt: string | null;
  deletedBy: number | null;
}

async function world(t: ExecutionContext) {
  const running = await clinic(t);
  const [patient] = await insertPatients(running.knex, [
    { mrn: 'A1', family_name: 'Müller', given_name: 'J' },
  ]);
  const clinician = running.as('clinician');
  const admin = running.as('admin');
  const upload = async (
    bytes: Buffer,
    options: { query?: string; headers?: Record<string, string>; token?: string } = {},
  ) =>
    api(
      running.base,
      options.token ?? clinician,
      'POST',
      `${PREFIX}/patients/${patient}/documents${options.query ?? ''}`,
      {
        body: bytes,
        headers: { 'content-type': 'application/pdf', 'x-document-title': 'Befund', ...options.headers },
      },
    );
  const list = async (query = '', token = clinician) =>
    api(running.base, token, 'GET', `${PREFIX}/patients/${patient}/documents${query}`);
  return { ...running, clinician, admin, patient: patient as number, upload, list };
}

const ids = (answer: { body: unknown }) =>
  (answer.body as { items: DocumentBody[] }).items.map((item) => item.id);

test('the original file name is kept and names the download, RFC 5987-encoded beyond ASCII', async (t) => {
  const { base, clinician, upload } = await world(t);
  const name = 'Befund Müller.pdf';
  const created = await upload(PDF, { headers: { 'x-file-name': encodeURIComponent(name) } });
  t.is(created.status, 201, created.text);
  const document = created.body as DocumentBody;
  t.like(document, {
    title: 'Befund',
    fileName: name,
    category: 'other',
    source: 'upload',
    documentDate: null,
  });
  const content = await api(base, clinician, 'GET', `${PREFIX}/documents/${document.id}/content`);
  t.is(content.status, 200);
  t.is(
    content.headers.get('content-disposition'),
    `attachment; filename="Befund Muller.pdf"; filename*=UTF-8''Befund%20M%C3%BCller.pdf`,
  );
  const byQuery = await upload(PDF, {
    query: `?fileName=${encodeURIComponent('C:\\scans\\Röntgen\u202E.jpg')}`,
  });
  t.is((byQuery.body as DocumentBody).fileName, 'Röntgen_.jpg', 'folders dropped, a bidi override replaced');
  const untitled = await upload(PDF, { headers: { 'x-document-title': 'Letter 3.pdf' } });
  t.is(
    (untitled.body as DocumentBody).fileName,
    'Letter 3.pdf',
    'no file name sent: the title names the file',
  );
});

test('a file name with nothing left once cleaned, or bad percent-encoding, is refused and stores nothing', async (t) => {
  const { upload, knex } = await world(t);
  for (const [headers, message] of [
    [
      { 'x-file-name': '..' },
      'the file name ".." has no name left once folders and control characters are taken out',
    ],
    [
      { 'x-file-name': 'a%2Fb%2F' },
      'the file name "a/b/" has no name left once folders and control characters are taken out',
    ],
    [{ 'x-file-name': '100%' }, 'the X-File-Name header is not valid percent-encoding'],
  ] as const) {
    const answer = await upload(PDF, { headers });
    t.is(answer.status, 400, message);
    t.like(errorOf(answer), { code: 'invalid_upload', message });
  }
  t.deepEqual(await knex('documents_document').select('id'), []);
});

test('a category files the document and filters the list; an unknown one is 422 and stores nothing', async (t) => {
  const { upload, list, knex } = await world(t);
  const lab = (await upload(PDF, { query: '?category=lab_result&documentDate=2024-02-29' }))
    .body as DocumentBody;
  t.like(lab, { category: 'lab_result', documentDate: '2024-02-29' });
  const letter = (await upload(PDF, { headers: { 'x-document-category': 'letter' } })).body as DocumentBody;
  t.is(letter.category, 'letter');
  t.deepEqual(ids(await list('?category=lab_result')), [lab.id]);
  t.deepEqual(ids(await list('?category=letter')), [letter.id]);
  t.deepEqual(ids(await list()), [letter.id, lab.id]);

  const unknown = await upload(PDF, { query: '?category=x-ray' });
  t.is(unknown.status, 422);
  t.like(errorOf(unknown), {
    code: 'unknown_category',
    message: '"x-ray" is not a document category',
    hint: 'use one of letter, lab_result, imaging, referral, consent, note, other',
  });
  t.is((await list('?category=x-ray')).status, 422);
  const badDate = await upload(PDF, { query: '?documentDate=2023-02-29' });
  t.is(badDate.status, 422);
  t.like(errorOf(badDate), { code: 'invalid_document_date' });
  t.is((await knex('documents_document').count({ n: '*' }))[0]!.n, '2');
});

test('imported documents say so, with the date their source gives', async (t) => {
  const { knex, list, patient } = await world(t);
  await knex('documents_document').insert({
    patient_id: patient,
    title: 'Note',
    content_type: 'text/plain',
    sha256: 'a'.repeat(64),
    size: 3,
    category: 'note',
    source: 'import',
    document_date: '2019-05-04',
  });
  const [note] = ((await list()).body as { items: DocumentBody[] }).items;
  t.like(note, { source: 'import', documentDate: '2019-05-04', category: 'note' });
});

test('a deleted document is gone from the list, metadata and download (404), its file kept, until an admin restores it', async (t) => {
  const { base, clinician, admin, upload, list, storage, knex } = await world(t);
  const kept = (await upload(PDF, { headers: { 'x-document-title': 'kept' } })).body as DocumentBody;
  const gone = (await upload(Buffer.from('other bytes'), { headers: { 'x-document-title': 'gone' } }))
    .body as DocumentBody;
  const deleted = await api(base, clinician, 'DELETE', `${PREFIX}/documents/${gone.id}`);
  t.is(deleted.status, 204, deleted.text);
  t.deepEqual(ids(await list()), [kept.id]);
  for (const suffix of ['', '/content', '/content?inline=1']) {
    const answer = await api(base, clinician, 'GET', `${PREFIX}/documents/${gone.id}${suffix}`);
    t.is(answer.status, 404, suffix);
  }
  t.is((await api(base, clinician, 'DELETE', `${PREFIX}/documents/${gone.id}`)).status, 404, 'deleted once');
  const row = await knex('documents_document').where({ id: gone.id }).first('deleted_at', 'deleted_by');
  t.truthy(row.deleted_at);
  t.is(typeof row.deleted_by, 'number');
  const files = await readdir(path.join(storage, 'documents'), { recursive: true });
  t.true(
    files.some((file) => file.endsWith(gone.sha256)),
    'the file stays stored while a deleted row points to it',
  );

  t.is((await list('?deleted=1')).status, 403, 'only a restorer lists the deleted');
  const refused = await api(base, clinician, 'POST', `${PREFIX}/documents/${gone.id}/restore`);
  t.is(refused.status, 403);
  t.like(errorOf(refused), {
    code: 'permission_denied',
    message: 'permission denied: documents.document.restore',
  });
  t.truthy(await knex('documents_document').where({ id: gone.id }).whereNotNull('deleted_at').first('id'));

  const bin = (await list('?deleted=1', admin)).body as { items: DocumentBody[] };
  t.deepEqual(
    bin.items.map((item) => item.id),
    [gone.id],
  );
  t.truthy(bin.items[0]!.deletedAt);
  const restored = await api(base, admin, 'POST', `${PREFIX}/documents/${gone.id}/restore`);
  t.is(restored.status, 200, restored.text);
  t.like(restored.body, { id: gone.id, deletedAt: null, deletedBy: null });
  t.deepEqual(ids(await list()), [gone.id, kept.id]);
  t.is((await api(base, clinician, 'GET', `${PREFIX}/documents/${gone.id}/content`)).status, 200);
  t.is(
    (await api(base, admin, 'POST', `${PREFIX}/documents/${gone.id}/restore`)).status,
    404,
    'not deleted now',
  );
});

test('?inline=1 shows PDF, images and plain text inline, framed only by Ward; HTML and SVG stay attachments', async (t) => {
  const { base, clinician, upload } = await world(t);
  const content = async (type: string, inline: string) => {
    const { id } = (await upload(Buffer.from(`x ${type}`), { headers: { 'content-type': type } }))
      .body as DocumentBody;
    return api(base, clinician, 'GET', `${PREFIX}/documents/${id}/content${inline}`);
  };
  const pdf = await content('application/pdf', '?inline=1');
  t.is(pdf.headers.get('content-disposition'), 'inline; filename="Befund"');
  t.is(pdf.headers.get('content-security-policy'), "default-src 'none'; frame-ancestors 'self'");
  t.is(pdf.headers.get('x-content-type-options'), 'nosniff');
  for (const type of ['image/png', 'image/jpeg', 'text/plain; charset=utf-8']) {
    const shown = await content(type, '?inline=1');
    t.is(shown.headers.get('content-disposition'), 'inline; filename="Befund"', type);
    t.is(
      shown.headers.get('content-security-policy'),
      "sandbox; default-src 'none'; frame-ancestors 'self'",
      type,
    );
  }
  for (const type of ['text/html', 'image/svg+xml', 'application/xhtml+xml', 'application/octet-stream']) {
    const kept = await content(type, '?inline=1');
    t.is(kept.headers.get('content-disposition'), 'attachment; filename="Befund"', type);
    t.is(kept.headers.get('content-security-policy'), "sandbox; default-src 'none'", type);
  }
  t.is((await content('application/pdf', '?inline=yes')).status, 400);
});

test('?q finds documents by text in the title or the file name, case aside, % and _ literal; too long is 400', async (t) => {
  const { upload, list } = await world(t);
  const made = async (title: string, fileName: string) =>
    (
      (await upload(PDF, { headers: { 'x-document-title': title, 'x-file-name': fileName } }))
        .body as DocumentBody
    ).id;
  const knee = await made('Knee MRI', 'knee_scan.pdf');
  const letter = await made('Discharge letter', 'letter.pdf');
  const percent = await made(encodeURIComponent('Dose 100%'), 'dose.pdf');
  t.deepEqual(ids(await list('?q=SCAN')), [knee]);
  t.deepEqual(ids(await list('?q=letter')), [letter]);
  t.deepEqual(ids(await list('?q=%25')), [percent]);
  t.deepEqual(ids(await list('?q=e_l')), [], 'not "e l" of "Discharge letter"');
  t.deepEqual(ids(await list('?q=%20')), [percent, letter, knee], 'blank is no filter');
  const long = await list(`?q=${'x'.repeat(201)}`);
  t.is(long.status, 400);
  t.is(errorOf(long).message, 'the query parameter q is longer than 200 characters');
});
