/**
 * WARD_DOCUMENT_MAX_BYTES: a file over the limit is refused with 413 whether its size is declared
 * (before a byte is read) or only found while streaming (as soon as the limit is passed), and
 * leaves neither a row nor a file, partial or whole. Its own file: the limit is read from the
 * environment when the routes load, and each test file runs in its own process.
 */
import { readdir } from 'node:fs/promises';
import test from 'ava';
import { WardError } from '../../../src/errors/ward-error.ts';
import { DEFAULT_MAX_BYTES, documentMaxBytes } from '../../../modules/documents/lib/config.ts';
import { sdk } from '../../../src/sdk/runtime.ts';
import { api, clinic, errorOf, insertPatients } from '../helpers.ts';

const LIMIT = 64 * 1024;
process.env.WARD_DOCUMENT_MAX_BYTES = '64kb';

const TOO_LARGE = {
  code: 'body_too_large',
  message: `the file is larger than the limit of ${LIMIT} bytes`,
  hint: 'send a smaller file (the operator sets the limit with WARD_DOCUMENT_MAX_BYTES)',
};

async function world(t: Parameters<typeof clinic>[0]) {
  const running = await clinic(t);
  const [patient] = await insertPatients(running.knex, [{ mrn: 'A1', family_name: 'Ada', given_name: 'A' }]);
  const url = `${running.base}/api/v1/documents/patients/${patient}/documents?title=big`;
  const files = async () =>
    (await readdir(running.storage, { recursive: true, withFileTypes: true })).filter((entry) =>
      entry.isFile(),
    );
  return { ...running, url, files, token: running.as('admin') };
}

test('a declared size over the limit is 413 before anything is stored', async (t) => {
  const { base, token, url, files, knex } = await world(t);
  const answer = await api(base, token, 'POST', url.slice(base.length), { body: Buffer.alloc(LIMIT + 1) });
  t.is(answer.status, 413);
  t.deepEqual(errorOf(answer), TOO_LARGE);
  t.is(answer.headers.get('connection'), 'close');
  t.deepEqual(await files(), []);
  t.deepEqual(await knex('documents_document').select('id'), []);
});

test('a streamed body (no Content-Length) is cut off at the limit: 413, no partial file, no row', async (t) => {
  const { token, url, files, knex, storage } = await world(t);
  const chunk = Buffer.alloc(16 * 1024, 1);
  const body = new ReadableStream<Uint8Array>({
    // Endless: the server must stop reading at the limit, not wait for an end that never comes.
    pull(controller) {
      controller.enqueue(chunk);
    },
  });
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
    body,
    duplex: 'half',
  } as RequestInit);
  t.is(response.status, 413);
  t.deepEqual(((await response.json()) as { error: object }).error, TOO_LARGE);
  t.deepEqual(await files(), [], `nothing under ${storage}`);
  t.deepEqual(await knex('documents_document').select('id'), []);
});

test('a file of exactly the limit is stored', async (t) => {
  const { base, token, url, files } = await world(t);
  const answer = await api(base, token, 'POST', url.slice(base.length), { body: Buffer.alloc(LIMIT, 2) });
  t.is(answer.status, 201, answer.text);
  t.like(answer.body, { size: LIMIT });
  t.is((await files()).length, 1);
});

test('the limit defaults to 25 MiB; a value that is not a size is refused with the variable named', (t) => {
  t.is(documentMaxBytes(sdk, {}), DEFAULT_MAX_BYTES);
  t.is(DEFAULT_MAX_BYTES, 25 * 1024 * 1024);
  t.is(documentMaxBytes(sdk, { WARD_DOCUMENT_MAX_BYTES: '100mb' }), 100 * 1024 * 1024);
  t.is(documentMaxBytes(sdk, { WARD_DOCUMENT_MAX_BYTES: '1000' }), 1000);
  const error = t.throws(() => documentMaxBytes(sdk, { WARD_DOCUMENT_MAX_BYTES: 'lots' }), {
    instanceOf: WardError,
  });
  t.like(error, {
    code: 'invalid_setting',
    message: 'WARD_DOCUMENT_MAX_BYTES="lots" is not a size',
    hint: 'give bytes or a number with kb or mb, such as 25mb (the default) or 100mb',
  });
});
