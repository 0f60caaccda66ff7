/**
 * A backend killed (SIGKILL, by its pid) in the middle of a document upload and of an import
 * source upload leaves their partial files behind; the backend `ward serve` starts in its place
 * removes them before it serves, and every upload that had finished stays whole.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { request, type ClientRequest } from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import { scratchDir, ward, type WardEnv } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { alive, restart, serve, type Served } from '../helpers/serve.ts';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** 300 KiB of bytes no other test sends. */
const bytes = (seed: number) =>
  Buffer.from(Array.from({ length: 300 * 1024 }, (_, i) => (i * 31 + seed) % 251));

async function must(args: string[], env: WardEnv): Promise<string> {
  const run = await ward(args, env);
  if (run.code !== 0) throw new Error(`ward ${args.join(' ')}: ${run.stderr}`);
  return run.stdout.trim();
}

async function installed(t: ExecutionContext) {
  const { url } = await testDatabase(t);
  const storage = await scratchDir('ward-upload-crash-');
  const env: WardEnv = { DATABASE_URL: url, WARD_STORAGE_DIR: storage };
  await restart(env);
  await must(['modules', 'install', 'migration_import'], env);
  await restart(env);
  return { storage, env, token: await must(['tokens', 'create', '--user', 'admin'], env) };
}

async function post(base: string, token: string, pathname: string, body: Buffer | string, json = false) {
  const response = await fetch(`${base}/api/v1${pathname}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': json ? 'application/json' : 'application/octet-stream',
    },
    body,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** An upload that sends `head` and then nothing more, until the test ends. */
function hangingUpload(t: ExecutionContext, base: string, token: string, pathname: string, head: Buffer) {
  const upload: ClientRequest = request(`${base}/api/v1${pathname}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' },
  });
  // The backend dies under it: the request fails, as it should.
  upload.on('error', () => undefined);
  upload.write(head);
  t.teardown(() => upload.destroy());
}

/** The partial files in the two upload folders, as "<folder>/<name>". */
async function partialFiles(storage: string): Promise<string[]> {
  const list = async (dir: string, partial: (name: string) => boolean) =>
    (await readdir(path.join(storage, dir)).catch(() => [] as string[]))
      .filter(partial)
      .map((name) => `${dir}/${name}`);
  return [
    ...(await list('documents/tmp', (name) => name.endsWith('.part'))),
    ...(await list('migration_import/sources', (name) => name.startsWith('.incoming-'))),
  ];
}

/** The address and pid of the `n`-th backend (from 0) `ward serve` started, once it listens. */
async function backend(served: Served, n: number): Promise<{ base: string; pid: number }> {
  for (;;) {
    const found = [...served.output().matchAll(/listening on (http:\/\/\S+) \([^)]*pid (\d+)\)/g)][n];
    if (found !== undefined) return { base: found[1] as string, pid: Number(found[2]) };
    await sleep(50);
  }
}

test('a backend killed mid-upload leaves no partial file once `ward serve` has started it again, and finished files intact', async (t) => {
  const { storage, env, token } = await installed(t);
  const supervisor = await serve(env, 'serve');
  t.teardown(() => supervisor.stop());
  const doomed = await backend(supervisor, 0);

  const patient = await post(
    doomed.base,
    token,
    '/patients/patients',
    JSON.stringify({ mrn: 'UC-1', familyName: 'Ng', givenName: 'Al' }),
    true,
  );
  t.is(patient.status, 201);
  const documentsPath = `/documents/patients/${patient.body.id as number}/documents?title=scan`;
  const document = bytes(1);
  const stored = await post(doomed.base, token, documentsPath, document);
  t.is(stored.status, 201);
  const source = Buffer.from(`Id,BIRTHDATE\n${'x'.repeat(1000)},2000-01-01\n`);
  const job = await post(
    doomed.base,
    token,
    '/migration_import/jobs?format=synthea-patients-csv&source_system=old',
    source,
  );
  t.is(job.status, 201);

  const head = bytes(2).subarray(0, 64 * 1024);
  hangingUpload(t, doomed.base, token, documentsPath, head);
  hangingUpload(
    t,
    doomed.base,
    token,
    '/migration_import/jobs?format=synthea-patients-csv&source_system=old',
    head,
  );
  // Both partial files hold the bytes sent so far: the uploads are under way.
  for (;;) {
    const partial = await partialFiles(storage);
    const sizes = await Promise.all(
      partial.map(async (file) => (await readFile(path.join(storage, file))).length),
    );
    if (partial.length === 2 && sizes.every((size) => size === head.length)) break;
    await sleep(50);
  }
  process.kill(doomed.pid, 'SIGKILL');
  while (alive(doomed.pid)) await sleep(50);
  t.is((await partialFiles(storage)).length, 2, 'the killed backend left both behind');

  const next = await backend(supervisor, 1);
  t.deepEqual(await partialFiles(storage), [], 'the new backend removed them before serving');
  // The log line travels through a pipe: it may arrive after the listening line.
  while (!/removed 1 source upload\(s\) a stopped backend left unfinished/.test(supervisor.output()))
    await sleep(50);

  const content = await fetch(`${next.base}/api/v1/documents/documents/${stored.body.id as number}/content`, {
    headers: { authorization: `Bearer ${token}` },
  });
  t.is(sha256(Buffer.from(await content.arrayBuffer())), sha256(document), 'the stored document is whole');
  const sourceFile = path.join(storage, 'migration_import', 'sources', String(job.body.id));
  t.is(sha256(await readFile(sourceFile)), sha256(source), 'the stored source is whole');
  t.is(await supervisor.stop(), 0);
});
