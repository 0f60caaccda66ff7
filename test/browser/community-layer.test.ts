/**
 * A community module's layer reaches the browser the way an operator installs the module: the
 * example package (test/fixtures/packages) packed with `npm pack`, installed into the clinic's
 * package root with `npm install` from the tarball, then `ward modules install`, `restart --wait`
 * and `sync-frontend` against a running backend. A reload shows its sidebar entry and pages: the
 * layer is served from node_modules as the package ships it, and nothing is built anywhere; its
 * part of the patient page (the `patient.chart` slot) shows there too.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { FIXTURES, scratchDir } from '../helpers/cli.ts';
import {
  axeCheck,
  launchBrowser,
  screenshot,
  sidebar,
  sidebarLabels,
  signIn,
  startBackend,
  tabTo,
  type Backend,
  type LaunchedBrowser,
} from './helpers.ts';

const PACKAGE = path.join(FIXTURES, 'packages', 'ward-module-vitals');

let browser: LaunchedBrowser;
let backend: Backend;
let scratch: string;
let root: string;

function npm(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, { cwd, env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`npm ${args.join(' ')} exited ${code}:\n${stderr}`)),
    );
  });
}

test.before(async () => {
  // The clinic's package root exists from the start, still without the module.
  scratch = await scratchDir('ward-browser-package-');
  root = path.join(scratch, 'clinic');
  await mkdir(root);
  await writeFile(path.join(root, 'package.json'), JSON.stringify({ name: 'clinic', private: true }));
  browser = await launchBrowser();
  backend = await startBackend({
    modules: ['patients'],
    users: [{ username: 'chief', roles: ['admin'] }],
    env: { WARD_PACKAGE_ROOT: root },
  });
});

test.after.always(async () => {
  await browser?.close();
  await backend?.stop();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

test('a community layer installed from an npm tarball shows its sidebar entry and pages after a reload, with no build', async (t) => {
  const page = await browser.page(t);
  await page.goto(backend.base);
  await signIn(page, 'chief');
  const before = await sidebarLabels(page);
  t.true(before.includes('Patients'), before.join(', '));
  t.false(before.includes('Vital signs'), 'no entry before the package is installed');

  const [packed] = JSON.parse(
    await npm(['pack', PACKAGE, '--pack-destination', scratch, '--json'], scratch),
  ) as [{ filename: string }];
  await npm(['install', '--offline', '--no-audit', '--no-fund', path.join(scratch, packed.filename)], root);
  await backend.cli(['modules', 'install', 'vitals']);
  await backend.cli(['modules', 'restart', '--wait']);
  await backend.cli(['modules', 'sync-frontend']);

  const listed = JSON.parse(
    await readFile(path.join(backend.env.WARD_FRONTEND_DIR as string, 'modules.json'), 'utf8'),
  ) as { modules: Array<{ name: string; url: string }> };
  const layer = listed.modules.find((module) => module.name === 'vitals');
  t.is(layer?.url, '/layers/vitals/frontend/index.js');
  const served = await fetch(`${backend.base}${layer?.url}`);
  t.is(served.status, 200);
  t.is(
    await served.text(),
    await readFile(path.join(root, 'node_modules', 'ward-module-vitals', 'frontend', 'index.js'), 'utf8'),
    'the browser gets the file the package ships, untransformed',
  );

  const [patient] = await backend
    .knex('patients_patient')
    .insert({ mrn: 'V-1', family_name: 'Okafor', given_name: 'Ada' })
    .returning('id');
  await backend.knex('vitals_reading').insert({
    patient_id: patient.id,
    kind: 'pulse',
    value: 72,
    taken_at: '2026-07-01T09:00:00Z',
    recorded_by: 'chief',
  });

  await page.reload();
  const entry = sidebar(page).filter({ hasText: 'Vital signs' });
  await tabTo(page, entry);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Vital signs' }).waitFor();
  const kinds = page.getByRole('table', { name: 'Kinds of reading' });
  await kinds.waitFor();
  t.is(await kinds.getByRole('row').count(), 6, 'a header row and the five seeded kinds');
  await kinds.getByRole('cell', { name: 'Blood pressure, systolic' }).waitFor();
  await axeCheck(page, t);
  await screenshot(page, 'community-layer-kinds');

  await page.goto(`${backend.base}/vitals/patients/${patient.id}`);
  const readings = page.getByRole('table', { name: 'Readings, newest first' });
  await readings.waitFor();
  t.deepEqual(
    (await readings.getByRole('row').nth(1).getByRole('cell').allInnerTexts()).map((cell) => cell.trim()),
    ['2026-07-01T09:00:00.000Z', 'pulse', '72', 'chief'],
  );
  await axeCheck(page, t);
  await screenshot(page, 'community-layer-readings');

  // The community layer draws in the official patients layer's slot too.
  await page.goto(`${backend.base}/patients/${patient.id}`);
  await page.getByRole('heading', { level: 1, name: 'Okafor, Ada' }).waitFor();
  const latest = page.getByRole('table', { name: 'Latest readings' });
  await latest.waitFor();
  t.deepEqual(
    (await latest.getByRole('row').nth(1).getByRole('cell').allInnerTexts()).map((cell) => cell.trim()),
    ['2026-07-01T09:00:00.000Z', 'pulse', '72'],
  );
  await axeCheck(page, t);
  await screenshot(page, 'community-layer-patient-chart');
});
