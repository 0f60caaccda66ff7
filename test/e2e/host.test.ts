/**
 * HOST, with the real backend process and real sockets: by default a backend answers on this
 * machine only, `HOST=0.0.0.0` opens it to every interface (as a container needs), and the line it
 * prints names the address it really bound.
 */
import net from 'node:net';
import os from 'node:os';
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { scratchDir } from '../helpers/cli.ts';
import { testDatabase } from '../helpers/database.ts';
import { serve, type Served } from '../helpers/serve.ts';

/** An IPv4 address of this machine other than loopback, or null when it has none. */
function otherAddress(): string | null {
  for (const entries of Object.values(os.networkInterfaces()))
    for (const entry of entries ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  return null;
}

/** Whether something accepts a TCP connection at host:port. */
function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function backend(t: ExecutionContext, env: Record<string, string> = {}): Promise<Served> {
  const { url } = await testDatabase(t);
  const served = await serve({ DATABASE_URL: url, WARD_STORAGE_DIR: await scratchDir(), ...env });
  t.teardown(() => served.stop());
  return served;
}

const portOf = (served: Served) => Number(new URL(served.base).port);

/**
 * The structured lines the backend logs once it listens, waited for: pino writes them apart from
 * the printed line serve() waits for, and on a loaded machine they may come after it.
 */
async function listeningLog(served: Served) {
  const output = await served.waitFor(/"msg":"listening"[^\n]*\n/);
  return output
    .split('\n')
    .filter((line) => line.includes('"msg":"listening"'))
    .map((line) => JSON.parse(line) as { url: string; everyInterface: boolean });
}

test('by default the backend listens on 127.0.0.1 only, and says so', async (t) => {
  const served = await backend(t);
  const port = portOf(served);
  t.regex(
    served.output(),
    new RegExp(`listening on http://127\\.0\\.0\\.1:${port} \\(GET /health, pid \\d+\\)`),
  );
  const logged = await listeningLog(served);
  t.deepEqual(logged, [{ ...logged[0], url: `http://127.0.0.1:${port}`, everyInterface: false }]);
  t.is((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
  const other = otherAddress();
  if (other === null)
    t.log('this machine has no IPv4 address besides loopback: not reachable elsewhere is unchecked');
  else t.false(await reachable(other, port), `answers on ${other}`);
});

test('HOST=0.0.0.0 listens on every interface, and says so', async (t) => {
  const served = await backend(t, { HOST: '0.0.0.0' });
  const port = portOf(served);
  t.regex(
    served.output(),
    new RegExp(`listening on http://0\\.0\\.0\\.0:${port} \\(every interface; GET /health, pid \\d+\\)`),
  );
  t.like((await listeningLog(served))[0], { url: `http://0.0.0.0:${port}`, everyInterface: true });
  t.is((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
  const other = otherAddress();
  if (other === null)
    t.log('this machine has no IPv4 address besides loopback: reachable elsewhere is unchecked');
  else t.is((await fetch(`http://${other}:${port}/health`)).status, 200);
});

test('HOST=::1 listens on IPv6 loopback, printed in brackets', async (t) => {
  const hasIpv6 = Object.values(os.networkInterfaces()).some((entries) =>
    (entries ?? []).some((entry) => entry.address === '::1'),
  );
  if (!hasIpv6) {
    t.log('this machine has no IPv6 loopback: skipped');
    t.pass();
    return;
  }
  const served = await backend(t, { HOST: '::1' });
  const port = portOf(served);
  t.regex(served.output(), new RegExp(`listening on http://\\[::1\\]:${port} \\(GET /health`));
  t.is((await fetch(`http://[::1]:${port}/health`)).status, 200);
  t.false(await reachable('127.0.0.1', port), 'answers on IPv4 loopback');
});
