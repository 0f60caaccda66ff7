/**
 * Clients that hang up mid-request, against the real backend process: an upload cut off mid-body
 * and a download dropped mid-response are the client's doing, not Ward's. The backend notes each
 * in one structured log line without a stack, and writes nothing on stderr.
 */
import { spawn } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { createApiToken } from '../../src/auth/api-tokens.ts';
import { ROOT } from '../../src/config.ts';
import { addUser } from '../helpers/app.ts';
import { scratchDir, WARD } from '../helpers/cli.ts';
import { clinicDatabase, insertPatients } from '../modules/helpers.ts';

interface Backend {
  base: URL;
  stdout: () => string;
  stderr: () => string;
  /** Resolves once stdout has a log line that `matches`, and returns it parsed. */
  logLine: (matches: (line: Record<string, unknown>) => boolean) => Promise<Record<string, unknown>>;
}

/** `ward backend` on a free port, stdout and stderr kept apart; stopped (by pid) when the test ends. */
async function backend(t: ExecutionContext, env: Record<string, string>): Promise<Backend> {
  const child = spawn(WARD, ['backend'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', LOG_LEVEL: 'debug', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  const waitFor = async <T>(find: () => T | undefined, what: string): Promise<T> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const found = find();
      if (found !== undefined) return found;
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`no ${what}:\n${stdout}\n--- stderr ---\n${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const address = await waitFor(() => /listening on (http:\/\/\S+)/.exec(stdout)?.[1], 'listening line');
  const logLines = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return {
    base: new URL(address),
    stdout: () => stdout,
    stderr: () => stderr,
    logLine: (matches) => waitFor(() => logLines().find(matches), 'matching log line'),
  };
}

/** Sends `head` (and `body`) on a raw connection. */
function rawRequest(base: URL, head: string, body: Buffer = Buffer.alloc(0)): net.Socket {
  const socket = net.connect(Number(base.port), base.hostname);
  socket.write(head);
  if (body.length > 0) socket.write(body);
  return socket;
}

async function setup(t: ExecutionContext) {
  const { url, knex } = await clinicDatabase(t);
  const storage = await scratchDir();
  const userId = await addUser(knex, 'clinician', ['clinician']);
  const { secret } = await createApiToken(knex, { userId, role: null, name: null, expiresAt: null });
  const [patient] = await insertPatients(knex, [{ mrn: 'A1', family_name: 'Ada', given_name: 'A' }]);
  const served = await backend(t, { DATABASE_URL: url, WARD_STORAGE_DIR: storage });
  return { served, storage, token: secret, patient: patient as number };
}

const aborted = (line: Record<string, unknown>) => /client closed/.test(String(line.msg));

/** Nothing outside the structured log, and no stack anywhere. */
function assertQuiet(t: ExecutionContext, served: Backend, line: Record<string, unknown>) {
  t.is(served.stderr(), '', 'nothing on stderr');
  t.false('err' in line, 'no error object');
  t.notRegex(served.stdout(), /\\n\s+at /, 'no stack trace in the log');
  t.true(Number(line.level) <= 30, `logged at info or below, not ${String(line.level)}`);
}

test('an upload cut off mid-body is one quiet structured log line, with nothing on stderr', async (t) => {
  const { served, storage, token, patient } = await setup(t);
  const socket = rawRequest(
    served.base,
    `POST /api/v1/documents/patients/${patient}/documents HTTP/1.1\r\nHost: x\r\n` +
      `Authorization: Bearer ${token}\r\nContent-Type: application/octet-stream\r\n` +
      `X-Document-Title: scan.bin\r\nContent-Length: 10000000\r\n\r\n`,
    Buffer.alloc(100_000, 7),
  );
  socket.on('error', () => undefined);
  // Mid-body for sure: the backend has begun writing the upload to a temporary file.
  const tmp = path.join(storage, 'documents', 'tmp');
  const deadline = Date.now() + 60_000;
  while ((await readdir(tmp).catch(() => [])).length === 0 && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 20));
  socket.destroy();
  const line = await served.logLine(aborted);
  t.like(line, { method: 'POST', path: `/api/v1/documents/patients/${patient}/documents`, stage: 'request' });
  assertQuiet(t, served, line);
});

test('a JSON body cut off mid-way is one quiet structured log line, with nothing on stderr', async (t) => {
  const { served } = await setup(t);
  const socket = rawRequest(
    served.base,
    'POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
      'Content-Length: 1000\r\nExpect: 100-continue\r\n\r\n',
  );
  socket.on('error', () => undefined);
  // The backend says to go on once the request has reached Ward: the body is then awaited.
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.write('{"username": "clinician", "pass');
  socket.end();
  const line = await served.logLine(aborted);
  t.like(line, { method: 'POST', path: '/api/v1/auth/login', stage: 'request' });
  assertQuiet(t, served, line);
});

test('a download dropped mid-response is one quiet structured log line, with nothing on stderr', async (t) => {
  const { served, token, patient } = await setup(t);
  // Larger than every socket buffer between the two ends: the backend cannot finish sending it
  // to a client that stops reading.
  const content = Buffer.alloc(20 * 1024 * 1024, 1);
  const uploaded = await fetch(new URL(`/api/v1/documents/patients/${patient}/documents`, served.base), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/octet-stream',
      'x-document-title': 'big.bin',
    },
    body: content,
  });
  t.is(uploaded.status, 201);
  const { id } = (await uploaded.json()) as { id: number };
  const socket = rawRequest(
    served.base,
    `GET /api/v1/documents/documents/${id}/content HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`,
  );
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) =>
    socket.once('data', () => {
      socket.pause();
      resolve();
    }),
  );
  socket.destroy();
  const line = await served.logLine(aborted);
  t.like(line, { method: 'GET', path: `/api/v1/documents/documents/${id}/content`, stage: 'response' });
  assertQuiet(t, served, line);
});
