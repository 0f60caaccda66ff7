/**
 * The deploy test: builds deploy/'s images, starts the Compose stack and drives it as an operator
 * would, through the published port and `docker compose exec`. Run by .ci/run after `npm test`:
 *
 *   node_modules/node/bin/node --test test/deploy/stack.deploy.ts
 *
 * It needs root, Docker (a running engine, or `dockerd`, which it starts and stops), docker-compose
 * and debootstrap: no registry is reachable, so the official base images are stood in for by local
 * ones (test/deploy/base-images.sh) passed as deploy/Dockerfile's build arguments, and the host's CA
 * bundle reaches the build stages only (deploy/ca/). It removes everything it created: the
 * stack's containers, volumes, network and images, the base images it built (unless
 * WARD_DEPLOY_KEEP_IMAGES=1, for a faster second run by hand), and the CA copy.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { dockerEngine, must, run, until } from './docker.ts';

const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const COMPOSE_FILE = path.join(ROOT, 'deploy', 'docker-compose.yml');
const CA_COPY = path.join(ROOT, 'deploy', 'ca', 'ca.crt');
const BASE_IMAGES = [
  'ward-ci/debian:bookworm',
  'ward-ci/node:24',
  'ward-ci/nginx:bookworm',
  'ward-ci/postgres:15',
];
const PROJECT = `wardci${process.pid}`;
const PASSWORD = 'a clinic password for the deploy test';
const MINUTE = 60_000;

const scratch = mkdtempSync(path.join(os.tmpdir(), 'ward-deploy-'));
const envFile = path.join(scratch, '.env');
let port = 0;
let engine: { stop(): Promise<void> } | null = null;
let basesBefore = new Set<string>();
let token = '';
const figures: string[] = [];
/** Whether anything failed: the containers' logs are printed then, for the CI log. */
let failed = false;

/** A test that records its failure (node:test does not tell an `after` hook). */
function step(name: string, body: () => Promise<void>): void {
  test(name, async () => {
    try {
      await body();
    } catch (error) {
      failed = true;
      throw error;
    }
  });
}

const compose = (args: readonly string[], input?: string | Buffer) =>
  run(
    process.env.WARD_COMPOSE ?? 'docker-compose',
    ['-p', PROJECT, '-f', COMPOSE_FILE, '--env-file', envFile, ...args],
    {
      input,
    },
  );

async function composeMust(args: readonly string[], input?: string | Buffer): Promise<string> {
  const result = await compose(args, input);
  if (result.code !== 0)
    throw new Error(
      `docker-compose ${args.join(' ')} exited with ${result.code}:\n${result.stdout}\n${result.stderr}`,
    );
  return result.stdout;
}

/** `ward …` inside one backend container (the first unless `index` says). */
const ward = (args: readonly string[], index = 1) =>
  compose(['exec', '-T', '--index', String(index), 'backend', 'ward', ...args]);

/**
 * `ward …` in a container of its own, from the backend's image and settings: what outlives a
 * restart of the backend containers, as `ward modules restart --wait` must.
 */
const wardOnce = (args: readonly string[]) =>
  compose(['run', '--rm', '--no-deps', '-T', 'backend', 'ward', ...args]);

const url = (pathname: string) => `http://127.0.0.1:${port}${pathname}`;

async function api(
  method: string,
  pathname: string,
  options: { json?: unknown; body?: Buffer; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown; headers: Headers; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (token !== '') headers.authorization = `Bearer ${token}`;
  let body: string | Buffer | undefined = options.body;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  }
  const response = await fetch(url(pathname), { method, headers, body, signal: AbortSignal.timeout(60_000) });
  const text = await response.text();
  return { status: response.status, body: parseOrText(text), headers: response.headers, text };
}

/** A JSON answer parsed; anything else (an nginx error page) as its text. */
function parseOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Resolves once /health answers 200 through the frontend; returns how long that took. */
async function healthy(what: string, ms = 5 * MINUTE): Promise<number> {
  const started = Date.now();
  await until(what, ms, async () =>
    (await fetch(url('/health'), { signal: AbortSignal.timeout(5_000) })).status === 200 ? true : undefined,
  );
  return Date.now() - started;
}

/**
 * Polls /health through the frontend every 100 ms until `stop`, which returns how long it did not
 * answer 200 (the sum of the gaps): a restart's downtime as a client sees it.
 */
function watchDowntime(): { stop(): Promise<number> } {
  let down = 0;
  let since: number | null = null;
  let running = true;
  const loop = (async () => {
    while (running) {
      const ok = await fetch(url('/health'), { signal: AbortSignal.timeout(2000) }).then(
        (answer) => answer.status === 200,
        () => false,
      );
      const now = Date.now();
      if (!ok) since ??= now;
      else if (since !== null) {
        down += now - since;
        since = null;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return down + (since === null ? 0 : Date.now() - since);
    },
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The ids of the running backend containers, and when each (re)started. */
async function backendStarts(): Promise<Map<string, string>> {
  const ids = (await composeMust(['ps', '-q', 'backend'])).split('\n').filter((id) => id !== '');
  const starts = new Map<string, string>();
  for (const id of ids)
    starts.set(id, (await must('docker', ['inspect', '-f', '{{.State.StartedAt}}', id])).trim());
  return starts;
}

/** Waits until every backend container started after `before` and answers its own healthcheck. */
async function allRestarted(before: Map<string, string>, ms = 3 * MINUTE): Promise<void> {
  await until('every backend container to restart and be healthy', ms, async () => {
    for (const [id, startedAt] of before) {
      const state = (
        await must('docker', ['inspect', '-f', '{{.State.StartedAt}} {{.State.Health.Status}}', id])
      ).trim();
      const [now, health] = state.split(' ');
      if (now === startedAt || health !== 'healthy') return undefined;
    }
    return true;
  });
}

async function moduleStates(): Promise<Record<string, string>> {
  const listed = await ward(['modules', 'list', '--json']);
  assert.equal(listed.code, 0, listed.stderr);
  const rows = JSON.parse(listed.stdout) as Array<{ name: string; state: string }>;
  return Object.fromEntries(rows.map((row) => [row.name, row.state]));
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port: found } = server.address() as { port: number };
      server.close(() => resolve(found));
    });
  });
}

/** The storage volume's folder on the host, as an operator finds it. */
async function storageOnHost(): Promise<string> {
  return (await must('docker', ['volume', 'inspect', '-f', '{{.Mountpoint}}', `${PROJECT}_storage`])).trim();
}

/** Images without a tag before the build: the build's own intermediate ones are removed after. */
let danglingBefore = new Set<string>();
const dangling = async () =>
  new Set(
    (await run('docker', ['images', '-q', '--filter', 'dangling=true'])).stdout.split('\n').filter(Boolean),
  );

before(async () => {
  try {
    await setUp();
  } catch (error) {
    failed = true;
    throw error;
  }
});

async function setUp(): Promise<void> {
  engine = await dockerEngine(scratch);
  danglingBefore = await dangling();
  const present = await Promise.all(
    BASE_IMAGES.map(async (image) =>
      (await run('docker', ['image', 'inspect', image])).code === 0 ? image : null,
    ),
  );
  basesBefore = new Set(present.filter((image) => image !== null));
  await must('bash', [path.join(ROOT, 'test', 'deploy', 'base-images.sh')]);
  copyFileSync('/etc/ssl/certs/ca-certificates.crt', CA_COPY);
  port = await freePort();
  writeFileSync(
    envFile,
    [
      `POSTGRES_PASSWORD=${'0123456789abcdef'.repeat(2)}`,
      `SECRET_KEY=${'fedcba9876543210'.repeat(2)}`,
      `WARD_HTTP_PORT=${port}`,
      `WARD_TAG=${PROJECT}`,
      'WARD_NODE_IMAGE=ward-ci/node:24',
      'WARD_BASE_IMAGE=ward-ci/debian:bookworm',
      'WARD_NGINX_IMAGE=ward-ci/nginx:bookworm',
      'WARD_POSTGRES_IMAGE=ward-ci/postgres:15',
      '',
    ].join('\n'),
  );
  const started = Date.now();
  try {
    await composeMust(['build']);
  } finally {
    rmSync(CA_COPY, { force: true });
  }
  figures.push(`images built in ${Math.round((Date.now() - started) / 1000)} s`);
  for (const image of ['backend', 'frontend']) {
    const size = Number(
      await must('docker', ['image', 'inspect', '-f', '{{.Size}}', `ward-${image}:${PROJECT}`]),
    );
    figures.push(`ward-${image} image: ${Math.round(size / 1e6)} MB`);
  }
}

/** Each step of the clean-up runs whatever the ones before it did. */
async function attempt(what: string, body: () => Promise<unknown>): Promise<void> {
  try {
    await body();
  } catch (error) {
    console.log(`clean-up: ${what} failed: ${(error as Error).message}`);
  }
}

after(async () => {
  await attempt('printing the logs', async () => {
    if (failed) console.log((await compose(['logs', '--no-color', '--tail', '300'])).stdout);
  });
  await attempt('stopping the stack', () => compose(['down', '-v', '--remove-orphans']));
  await attempt('removing the images', () =>
    run('docker', ['image', 'rm', `ward-backend:${PROJECT}`, `ward-frontend:${PROJECT}`]),
  );
  if (process.env.WARD_DEPLOY_KEEP_IMAGES !== '1')
    for (const image of BASE_IMAGES)
      if (!basesBefore.has(image))
        await attempt(`removing ${image}`, () => run('docker', ['image', 'rm', image]));
  await attempt('removing the build stages', async () => {
    const left = [...(await dangling())].filter((id) => !danglingBefore.has(id));
    if (left.length > 0) await run('docker', ['image', 'rm', ...left]);
  });
  await attempt('stopping dockerd', async () => engine?.stop());
  rmSync(CA_COPY, { force: true });
  rmSync(scratch, { recursive: true, force: true });
  console.log(`deploy figures:\n  ${figures.join('\n  ')}`);
});

step(
  'the images run as non-root users, ship no build-time CA bundle, and the frontend refuses bad settings',
  async () => {
    const backendUser = await must('docker', [
      'image',
      'inspect',
      '-f',
      '{{.Config.User}}',
      `ward-backend:${PROJECT}`,
    ]);
    assert.equal(backendUser.trim(), '10001:10001');
    const frontendUser = await must('docker', [
      'image',
      'inspect',
      '-f',
      '{{.Config.User}}',
      `ward-frontend:${PROJECT}`,
    ]);
    assert.equal(frontendUser.trim(), '101:101');
    for (const image of [`ward-backend:${PROJECT}`, `ward-frontend:${PROJECT}`]) {
      const found = await run('docker', [
        'run',
        '--rm',
        '--entrypoint',
        'sh',
        image,
        '-c',
        'ls /tmp/build-ca 2>&1; true',
      ]);
      assert.match(found.stdout, /No such file or directory/, `${image} holds no build CA`);
    }
    // The frontend's settings are checked before nginx starts: a bad one is refused, naming it.
    const check = (...env: string[]) =>
      run('docker', [
        'run',
        '--rm',
        ...env.flatMap((entry) => ['-e', entry]),
        `ward-frontend:${PROJECT}`,
        'check',
      ]);
    const good = await check('BACKEND_UPSTREAM=127.0.0.1:8080', 'TRUSTED_PROXIES=10.0.0.0/8,fd00::/8');
    assert.equal(good.code, 0, good.stderr);
    const badProxies = await check('BACKEND_UPSTREAM=127.0.0.1:8080', 'TRUSTED_PROXIES=10.0.0.0/8;deny all');
    assert.equal(badProxies.code, 1);
    assert.match(
      badProxies.stderr,
      /TRUSTED_PROXIES holds "10\.0\.0\.0\/8;deny", which is not an address or network\. Fix:/,
    );
    const badUpstream = await check('BACKEND_UPSTREAM=backend:8080;');
    assert.equal(badUpstream.code, 1);
    assert.match(badUpstream.stderr, /BACKEND_UPSTREAM="backend:8080;" is not a host:port\. Fix:/);
    const node = await must('docker', ['run', '--rm', `ward-backend:${PROJECT}`, 'node', '--version']);
    assert.match(node, /^v24\./, 'the pinned Node 24');
  },
);

step(
  '`up -d` gives a working clinic: /health through the frontend, the web UI with its caching headers',
  async () => {
    const started = Date.now();
    await composeMust(['up', '-d']);
    await healthy('the stack to answer /health through the frontend');
    figures.push(`up -d to healthy through the frontend: ${seconds(Date.now() - started)}`);
    const health = await api('GET', '/health');
    assert.deepEqual(Object.keys(health.body as object).sort(), ['status', 'version']);
    assert.equal((health.body as { status: string }).status, 'healthy');

    const page = await fetch(url('/patients'));
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<script type="importmap">/);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.match(page.headers.get('content-security-policy') ?? '', /script-src 'self' 'sha256-/);
    const asset =
      readdirSync(path.join(ROOT, 'frontend', 'dist', 'assets')).find((file) => file.endsWith('.js')) ?? '';
    const assetAnswer = await fetch(url(`/assets/${asset}`));
    // The checkout's build and the image's are of the same sources: the same hashed names.
    assert.equal(assetAnswer.status, 200, `/assets/${asset}`);
    assert.equal(assetAnswer.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const index = await fetch(url('/index.html'));
    assert.equal(index.status, 200);
    assert.equal(
      index.headers.get('content-security-policy'),
      page.headers.get('content-security-policy'),
      '/index.html carries the page policy too',
    );
    assert.equal(index.headers.get('x-frame-options'), 'DENY');
    const zipped = await fetch(url(`/assets/${asset}`), { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(zipped.headers.get('content-encoding'), 'gzip', 'JavaScript is sent compressed');
    const missing = await fetch(url('/assets/index-00000000.js'));
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('cache-control'), null, 'a missing asset is not cached for a year');
    const modulesJson = await fetch(url('/modules.json'));
    assert.equal(modulesJson.status, 200);
    assert.equal(modulesJson.headers.get('cache-control'), 'no-cache');

    const logs = await composeMust(['logs', '--no-color', 'backend']);
    assert.match(
      logs,
      /listening on http:\/\/0\.0\.0\.0:8080 \(every interface/,
      'the log states the address really bound',
    );
  },
);

step(
  'a module install applied by a host-level restart of the backend container; sign-in through the proxy',
  async () => {
    const install = await ward(['modules', 'install', 'patients']);
    assert.equal(install.code, 0, install.stderr);
    assert.match(install.stdout, /\+ base .*dependency of patients/);
    const before = await backendStarts();
    const watch = watchDowntime();
    await composeMust(['restart', 'backend']);
    await allRestarted(before);
    await healthy('the backend after `docker compose restart backend`');
    figures.push(`downtime of a restart through the container runtime: ${seconds(await watch.stop())}`);
    const states = await moduleStates();
    assert.deepEqual([states.base, states.patients], ['installed', 'installed']);

    const first = await composeMust(['exec', '-T', 'backend', 'cat', '/app/storage/first-admin-password']);
    const signIn = await api('POST', '/api/v1/auth/login', {
      json: { username: 'admin', password: first.trim() },
    });
    assert.equal(signIn.status, 200, signIn.text);
    assert.equal((signIn.body as { mustChangePassword: boolean }).mustChangePassword, true);
    assert.match(signIn.headers.get('set-cookie') ?? '', /ward_session=.*HttpOnly/i);
    token = (signIn.body as { token: string }).token;
    const changed = await api('POST', '/api/v1/auth/password', {
      json: { currentPassword: first.trim(), newPassword: PASSWORD },
    });
    assert.equal(changed.status, 204, changed.text);
    token = '';
    const again = await api('POST', '/api/v1/auth/login', {
      json: { username: 'admin', password: PASSWORD },
    });
    assert.equal(again.status, 200, again.text);
    token = (again.body as { token: string }).token;
    const me = await api('GET', '/api/v1/me');
    assert.equal(me.status, 200, me.text);
  },
);

step(
  'the restart endpoint: the backend exits, the restart policy respawns it, and the plan is applied',
  async () => {
    assert.equal((await ward(['modules', 'install', 'documents'])).code, 0);
    const before = await backendStarts();
    const watch = watchDowntime();
    const answer = await api('POST', '/api/v1/modules/-/restart');
    assert.equal(answer.status, 202, answer.text);
    await allRestarted(before);
    await healthy('the backend after the restart endpoint');
    figures.push(
      `downtime of a restart through POST /api/v1/modules/-/restart: ${seconds(await watch.stop())}`,
    );
    assert.equal((await moduleStates()).documents, 'installed');
  },
);

step('`ward modules restart --wait` in a one-off container follows the restart to the end', async () => {
  assert.equal((await ward(['modules', 'install', 'appointments'])).code, 0);
  const watch = watchDowntime();
  const restart = await wardOnce(['modules', 'restart', '--wait', '--timeout', '180']);
  assert.equal(restart.code, 0, `${restart.stdout}\n${restart.stderr}`);
  assert.match(restart.stdout, /install appointments: migrate done/);
  assert.match(restart.stdout, /Backends are back\./);
  await healthy('the backend after ward modules restart');
  figures.push(`downtime of a restart through ward modules restart: ${seconds(await watch.stop())}`);
  assert.equal((await moduleStates()).appointments, 'installed');
});

step(
  'a community module installed in the container from its npm tarball shows its layer, survives re-creation, and its uninstall backup restores through the db container',
  async () => {
    const packed = (
      await must('npm', ['pack', '--silent', '--pack-destination', scratch], {
        cwd: path.join(ROOT, 'test', 'fixtures', 'packages', 'ward-module-vitals'),
      })
    ).trim();
    // On the storage volume, where npm's record of where the package came from stays valid.
    const tarball = `/app/storage/packages/${packed}`;
    await composeMust(
      ['exec', '-T', 'backend', 'sh', '-c', `cat > ${tarball}`],
      readFileSync(path.join(scratch, packed)),
    );
    const npmInstall = await compose([
      'exec',
      '-T',
      'backend',
      'npm',
      'install',
      '--prefix',
      '/app/storage/packages',
      '--no-audit',
      '--no-fund',
      tarball,
    ]);
    assert.equal(npmInstall.code, 0, npmInstall.stderr);
    const install = await ward(['modules', 'install', 'vitals']);
    assert.equal(install.code, 0, `${install.stdout}\n${install.stderr}`);
    const restart = await wardOnce(['modules', 'restart', '--wait', '--timeout', '180']);
    assert.equal(restart.code, 0, `${restart.stdout}\n${restart.stderr}`);
    await healthy('the backend after installing vitals');

    const layers = (await (await fetch(url('/modules.json'))).json()) as Record<string, unknown>;
    assert.match(JSON.stringify(layers), /vitals/, 'modules.json lists the vitals layer');
    const layer = await fetch(url('/layers/vitals/frontend/index.js'));
    assert.equal(layer.status, 200, 'its layer is served through the frontend, with no image rebuild');
    const kinds = await api('GET', '/api/v1/vitals/kinds');
    assert.equal(kinds.status, 200, kinds.text);

    await composeMust(['up', '-d', '--force-recreate', 'backend']);
    await healthy('the re-created backend container');
    assert.equal(
      (await moduleStates()).vitals,
      'installed',
      'the package on the storage volume survives re-creation',
    );
    assert.equal((await fetch(url('/layers/vitals/frontend/index.js'))).status, 200);

    const psql = (sql: string) =>
      compose(['exec', '-T', 'db', 'psql', '-v', 'ON_ERROR_STOP=1', '-At', '-U', 'ward', 'ward', '-c', sql]);
    const seeded = (await psql('select count(*) from vitals_kind')).stdout.trim();
    assert.ok(Number(seeded) > 0, 'the seeded kinds are there');
    assert.equal((await psql("update vitals_kind set label = label || ' (clinic)'")).code, 0);
    assert.equal((await ward(['modules', 'uninstall', 'vitals'])).code, 0);
    assert.equal((await wardOnce(['modules', 'restart', '--wait', '--timeout', '180'])).code, 0);
    assert.equal((await moduleStates()).vitals, 'uninstalled');
    const backups = path.join(await storageOnHost(), 'backups');
    const file = readdirSync(backups).find((name) => /^module_vitals_\d{8}T\d{6}Z\.sql$/.test(name));
    assert.ok(file !== undefined, `a backup of vitals in the storage volume on the host (${backups})`);

    assert.equal((await ward(['modules', 'install', 'vitals'])).code, 0);
    assert.equal((await wardOnce(['modules', 'restart', '--wait', '--timeout', '180'])).code, 0);
    const restore = await compose(
      ['exec', '-T', 'db', 'psql', '-v', 'ON_ERROR_STOP=1', '-q', '-U', 'ward', 'ward'],
      readFileSync(path.join(backups, file)),
    );
    assert.equal(restore.code, 0, restore.stderr);
    const labels = (
      await psql("select count(*) from vitals_kind where label like '%(clinic)'")
    ).stdout.trim();
    assert.equal(labels, seeded, "the clinic's own edits are back");
  },
);

/** Straight to one replica, inside its container, bypassing nginx: prints `script`'s console.log. */
const inReplica = (index: number, script: string) =>
  compose(['exec', '-T', '--index', String(index), 'backend', 'node', '--input-type=module', '-e', script]);

const psqlValue = async (sql: string) =>
  (
    await composeMust([
      'exec',
      '-T',
      'db',
      'psql',
      '-v',
      'ON_ERROR_STOP=1',
      '-At',
      '-U',
      'ward',
      'ward',
      '-c',
      sql,
    ])
  ).trim();

step(
  'three backend replicas behind the frontend: one applies the plan, documents cross replicas, a restart restarts them all',
  async () => {
    // Settings on the storage volume reach every replica: a short import lease and small batches,
    // for the take-over test below to see a run move within seconds.
    await composeMust([
      'exec',
      '-T',
      'backend',
      'sh',
      '-c',
      'printf "WARD_IMPORT_LEASE_SECONDS=3\\nWARD_IMPORT_BATCH_SIZE=10\\n" >> /app/storage/ward.env',
    ]);
    await composeMust(['up', '-d', '--scale', 'backend=3', '--no-recreate']);
    await until('three healthy backends', 5 * MINUTE, async () => {
      const starts = await backendStarts();
      if (starts.size !== 3) return undefined;
      for (const id of starts.keys()) {
        const health = (await must('docker', ['inspect', '-f', '{{.State.Health.Status}}', id])).trim();
        if (health !== 'healthy') return undefined;
      }
      return true;
    });
    assert.equal((await ward(['modules', 'install', 'migration_import'])).code, 0);
    const lastLog = Number(await psqlValue('select coalesce(max(id), 0) from core_module_operation_log'));
    const before = await backendStarts();
    const answer = await api('POST', '/api/v1/modules/-/restart');
    assert.equal(answer.status, 202, answer.text);
    assert.equal((answer.body as { replicas: number }).replicas, 2, 'the two other replicas are asked too');
    await allRestarted(before);
    await healthy('the replicas after the restart');
    assert.equal((await moduleStates()).migration_import, 'installed');
    // nginx spreads requests over all three, replicas it learnt of after it started included: each
    // names the backend process that answered.
    const answering = new Set<string>();
    await until('requests through the frontend to reach all three replicas', MINUTE, async () => {
      const answer = await api('GET', '/api/v1/modules/-/restart/none');
      assert.equal(answer.status, 200, answer.text);
      answering.add((answer.body as { startId: string }).startId);
      return answering.size === 3 ? true : undefined;
    });
    const steps = await psqlValue(
      `select count(*) || ' ' || count(distinct step) from core_module_operation_log where id > ${lastLog} and module_name = 'migration_import' and status = 'done'`,
    );
    const [done, distinct] = steps.split(' ');
    assert.equal(done, distinct, 'each step of the plan was applied once, by one replica');

    // An upload through the first replica, read through the third.
    const patient = await api('POST', '/api/v1/patients/patients', {
      json: { mrn: 'MRN-DEPLOY-1', familyName: 'Lovelace', givenName: 'Ada' },
    });
    assert.equal(patient.status, 201, patient.text);
    const patientId = (patient.body as { id: number }).id;
    const auth = JSON.stringify(`Bearer ${token}`);
    const uploaded = await inReplica(
      1,
      `const r = await fetch('http://127.0.0.1:8080/api/v1/documents/patients/${patientId}/documents?title=Referral', {
       method: 'POST', headers: { authorization: ${auth}, 'content-type': 'text/plain' }, body: 'referral letter' });
     console.log(JSON.stringify({ status: r.status, body: await r.json() }));`,
    );
    const { status, body } = JSON.parse(uploaded.stdout) as { status: number; body: { id: number } };
    assert.equal(status, 201, uploaded.stdout + uploaded.stderr);
    const downloaded = await inReplica(
      3,
      `const r = await fetch('http://127.0.0.1:8080/api/v1/documents/documents/${body.id}/content', { headers: { authorization: ${auth} } });
     console.log(JSON.stringify({ status: r.status, text: await r.text() }));`,
    );
    assert.deepEqual(JSON.parse(downloaded.stdout), { status: 200, text: 'referral letter' });
  },
);

step('a document larger than nginx would take by default passes through the proxy both ways', async () => {
  const patients = (await api('GET', '/api/v1/patients/patients?q=Lovelace')).body as {
    items: Array<{ id: number }>;
  };
  const id = patients.items[0]!.id;
  const scan = Buffer.alloc(5 * 1024 * 1024, 'scan ');
  const answer = await api('POST', `/api/v1/documents/patients/${id}/documents?title=Scan`, {
    body: scan,
    headers: { 'content-type': 'application/pdf' },
  });
  assert.equal(answer.status, 201, answer.text);
  const download = await fetch(
    url(`/api/v1/documents/documents/${(answer.body as { id: number }).id}/content`),
    {
      headers: { authorization: `Bearer ${token}` },
    },
  );
  assert.equal(download.status, 200);
  assert.ok(Buffer.from(await download.arrayBuffer()).equals(scan), 'the same bytes come back');
});

/** Patients in the import whose run is taken over: at 10 a transaction, a run of some seconds. */
const IMPORTED = 20_000;

step(
  'an import run whose replica is killed mid-way is taken over by a live replica and finishes',
  async () => {
    const [header, ...rows] = readFileSync(
      path.join(ROOT, 'test', 'fixtures', 'import', 'synthea', 'patients.csv'),
      'utf8',
    )
      .trim()
      .split('\n');
    // Many distinct patients from the real export's rows: a new id (it stands in for the MRN) each.
    const many = Array.from({ length: IMPORTED }, (_, index) => {
      const row = rows[index % rows.length]!;
      return `${index.toString(16).padStart(8, '0')}${row.slice(8)}`;
    });
    const created = await api(
      'POST',
      '/api/v1/migration_import/jobs?format=synthea-patients-csv&source_system=deploy',
      {
        body: Buffer.from([header, ...many].join('\n') + '\n'),
        headers: { 'content-type': 'text/csv' },
      },
    );
    assert.equal(created.status, 201, created.text);
    const job = (created.body as { id: number }).id;
    const state = async () =>
      ((await api('GET', `/api/v1/migration_import/jobs/${job}`)).body as { state: string }).state;
    assert.equal((await api('POST', `/api/v1/migration_import/jobs/${job}/validate`)).status, 202);
    await until('the job to be validated', 3 * MINUTE, async () =>
      (await state()) === 'validated' ? true : undefined,
    );

    const auth = JSON.stringify(`Bearer ${token}`);
    const execute = await inReplica(
      2,
      `const r = await fetch('http://127.0.0.1:8080/api/v1/migration_import/jobs/${job}/execute', { method: 'POST', headers: { authorization: ${auth} } });
     console.log(r.status);`,
    );
    assert.equal(execute.stdout.trim(), '202', execute.stderr);
    const firstWorker = await until('the run to hold its lease', MINUTE, async () => {
      const worker = await psqlValue(
        `select worker_id from migration_import_job where id = ${job} and state = 'executing'`,
      );
      return worker === '' ? undefined : worker;
    });
    // The worker id starts with its container's host name.
    let container = '';
    for (const id of (await composeMust(['ps', '-q', 'backend'])).trim().split('\n')) {
      const hostname = (await must('docker', ['inspect', '-f', '{{.Config.Hostname}}', id])).trim();
      if (firstWorker.startsWith(`${hostname}:`)) container = id;
    }
    assert.notEqual(container, '', `a backend container runs it (${firstWorker})`);
    // Frozen first, so that the run is certainly mid-way when its replica dies (a kill needs it thawed).
    await must('docker', ['pause', container]);
    // From the database: through nginx, a request may reach the frozen replica and wait.
    assert.equal(
      await psqlValue(`select state from migration_import_job where id = ${job}`),
      'executing',
      'killed mid-way',
    );
    await must('docker', ['unpause', container]);
    await must('docker', ['kill', container]);

    const nextWorker = await until('another worker to take the run over', 2 * MINUTE, async () => {
      const worker = await psqlValue(
        `select coalesce(worker_id, 'done') from migration_import_job where id = ${job}`,
      );
      return worker !== firstWorker ? worker : undefined;
    });
    await until('the job to succeed', 5 * MINUTE, async () =>
      (await state()) === 'succeeded' ? true : undefined,
    );
    assert.notEqual(nextWorker, firstWorker);
    const imported = await psqlValue("select count(*) from patients_patient where mrn <> 'MRN-DEPLOY-1'");
    assert.equal(
      Number(imported),
      IMPORTED,
      'every patient once: the take-over did not repeat what was written',
    );
  },
);
