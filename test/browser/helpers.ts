/**
 * Browser tests: Debian's Chromium, driven by playwright-core, against a real `ward serve` on a
 * real PostgreSQL with modules installed and users created through the CLI, as an operator would.
 * One browser and one backend per test file; every test gets its own browser context (cookies).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ExecutionContext } from 'ava';
import type { Knex } from 'knex';
import { chromium, type Browser, type FileChooser, type Locator, type Page } from 'playwright-core';
import { foldName } from '../../modules/appointments/lib/practitioners.ts';
import { ROOT } from '../../src/config.ts';
import { FIXTURES, scratchDir, TEST_SECRET_KEY, WARD, ward, type Run, type WardEnv } from '../helpers/cli.ts';
import { newDatabase } from '../helpers/database.ts';

export const CHROMIUM = '/usr/bin/chromium';

/** What Chromium needs to run headless as root in a container without a GPU or network noise. */
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * How long a wait may take before the test fails: the last resort, never how long a test waits
 * (every wait ends once what it reads is there). Generous, for a loaded 2-core machine where a
 * page may wait on a backend that is busy migrating or hashing other tests' passwords.
 */
export const TIMEOUT = 90_000;

export const ARTIFACTS = path.join(ROOT, 'test', 'browser', 'artifacts');

/** Passwords are long enough for the rule (12 characters) and obviously fake. */
export const PASSWORD = 'correct horse battery';

export interface LaunchedBrowser {
  browser: Browser;
  /**
   * A fresh context (no cookies) with one page; closed when the test ends. Its browser speaks
   * `locale` (default en-US, whatever the machine's language), which the shell follows.
   */
  page: (t: ExecutionContext, options?: { locale?: string }) => Promise<Page>;
  close: () => Promise<void>;
}

/**
 * Chromium with exactly CHROMIUM_FLAGS and a scratch profile. Playwright's own defaults are left
 * out; it still needs its control pipe, the one flag added.
 */
export async function launchBrowser(): Promise<LaunchedBrowser> {
  const profile = await scratchDir('ward-chromium-');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    ignoreDefaultArgs: true,
    args: [...CHROMIUM_FLAGS, `--user-data-dir=${profile}`, '--remote-debugging-pipe'],
    timeout: TIMEOUT,
  });
  /** Pages opened so far by each test, so that a failed test's screenshots have a name each. */
  const opened = new Map<string, number>();
  return {
    browser,
    page: async (t, { locale = 'en-US' } = {}) => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale });
      const number = (opened.get(t.title) ?? 0) + 1;
      opened.set(t.title, number);
      context.setDefaultTimeout(TIMEOUT);
      // A context whose page could not open is closed here: its test's teardown is not set yet.
      const page = await context.newPage().catch(async (error: unknown) => {
        await context.close();
        throw error;
      });
      const refusals: string[] = [];
      watchRefusals(page, refusals);
      t.teardown(async () => {
        if (!t.passed) await describeFailure(t, page, number, refusals);
        await context.close();
      });
      // The shell is served with a Content-Security-Policy: anything it blocks is a bug of the page.
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content Security Policy/i.test(message.text()))
          t.fail(`the page broke its Content-Security-Policy: ${message.text()}`);
      });
      return page;
    },
    close: async () => {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Keeps in `refusals` the API answers of 400 and above `page` gets, the last 20: what a failed test's log shows. */
function watchRefusals(page: Page, refusals: string[]): void {
  page.on('response', (response) => {
    if (response.status() < 400 || !new URL(response.url()).pathname.startsWith('/api/')) return;
    refusals.push(`${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
    if (refusals.length > 20) refusals.shift();
  });
}

/**
 * What the page showed when its test failed, in the test's log and as a screenshot: a test that
 * fails only on a loaded CI machine is then explained by its log, not guessed at.
 */
async function describeFailure(
  t: ExecutionContext,
  page: Page,
  number: number,
  refusals: string[],
): Promise<void> {
  try {
    t.log(`page ${number} was at ${page.url()}`);
    t.log(`the API refused it: ${refusals.length === 0 ? 'nothing' : refusals.join('; ')}`);
    const shown = await page.locator('body').innerText({ timeout: 5_000 });
    t.log(`it showed: ${shown.replace(/\s+/g, ' ').slice(0, 1_500)}`);
    const name = `failed-${t.title.replace(/[^a-z0-9]+/gi, '-').slice(0, 80)}-${number}`;
    // Not the page's long default timeout: a page that cannot be shot must not hold the teardown.
    await screenshot(page, name, { timeout: 10_000 });
    t.log(`its screenshot: test/browser/artifacts/${name}.png`);
  } catch (caught) {
    t.log(`page ${number} could not be described: ${String(caught)}`);
  }
}

export interface User {
  username: string;
  roles: string[];
}

export interface Backend {
  base: string;
  env: WardEnv;
  /** The backend's database, to check what a page did or did not change. */
  knex: Knex;
  /** `bin/ward` against this backend's database and storage; fails the caller on a non-zero exit. */
  cli: (args: string[], input?: string) => Promise<Run>;
  output: () => string;
  stop: () => Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The fixture community modules (clinic_portal ships a frontend layer) next to the official ones. */
const MODULE_PATHS = path.join(FIXTURES, 'modules', 'community');

/**
 * A scratch database (core schema by `ward db migrate`), storage folder and frontend folder (for
 * modules.json); `modules` installed by `ward modules install` and applied by the first start of
 * `ward serve`; modules.json written by `ward modules sync-frontend`; then `users` created by `ward
 * users create` with PASSWORD. `grants` becomes the storage's grants.json (extra roles). `env` adds
 * to, or replaces, the variables given to every `ward` run (WARD_MODULE_PATHS, WARD_PACKAGE_ROOT).
 */
export async function startBackend(options: {
  modules: string[];
  users: User[];
  grants?: Record<string, string[]>;
  env?: WardEnv;
}): Promise<Backend> {
  const database = await newDatabase({ prefix: 'ward_browser_' });
  const storage = await scratchDir('ward-browser-');
  const frontend = await scratchDir('ward-browser-frontend-');
  if (options.grants !== undefined)
    await writeFile(path.join(storage, 'grants.json'), JSON.stringify({ roles: options.grants }));
  const env: WardEnv = {
    DATABASE_URL: database.url,
    WARD_STORAGE_DIR: storage,
    WARD_MODULE_PATHS: MODULE_PATHS,
    WARD_FRONTEND_DIR: frontend,
    SECRET_KEY: TEST_SECRET_KEY,
    ...options.env,
  };
  const cli = async (args: string[], input?: string) => {
    const run = await ward(args, env, input === undefined ? {} : { input });
    if (run.code !== 0)
      throw new Error(`ward ${args.join(' ')} exited ${run.code}:\n${run.stdout}${run.stderr}`);
    return run;
  };
  const cleanUp = async () => {
    await database.drop();
    await rm(storage, { recursive: true, force: true });
    await rm(frontend, { recursive: true, force: true });
  };
  let served: Served;
  try {
    await cli(['db', 'migrate']);
    for (const name of options.modules) await cli(['modules', 'install', name]);
    served = await serve(env, await freePort());
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const backend: Backend = {
    base: served.base,
    env,
    knex: database.knex,
    cli,
    output: served.output,
    stop: async () => {
      await served.stop();
      await cleanUp();
    },
  };
  try {
    await cli(['modules', 'sync-frontend']);
    for (const user of options.users)
      await cli(
        [
          'users',
          'create',
          user.username,
          ...user.roles.flatMap((role) => ['--role', role]),
          '--password-stdin',
        ],
        `${PASSWORD}\n`,
      );
  } catch (error) {
    await backend.stop();
    throw error;
  }
  return backend;
}

interface Served {
  base: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** `ward serve` on `port`; resolves once its first backend listens, rejects if it exits first. */
function serve(env: WardEnv, port: number): Promise<Served> {
  return new Promise((resolve, reject) => {
    const child = spawn(WARD, ['serve'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<void>((done) =>
      child.on('exit', (code, signal) => {
        reject(new Error(`ward serve exited (${code ?? signal}) before listening:\n${output}`));
        done();
      }),
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on http/.test(output))
        resolve({
          base: `http://127.0.0.1:${port}`,
          output: () => output,
          // SIGTERM to the supervisor only (by its pid): it stops its backends and then exits.
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            await exited;
          },
        });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
  });
}

/**
 * Signs in from the keyboard, as a clerk does: Tab to each field of the form (found by its label)
 * and type, then Tab to the "Sign in" button and press Enter. Returns once the server has answered
 * the sign-in (with a turn to check the password: the page tries again after a 503 `sign_in_busy`),
 * so that what the caller waits for next does not also wait out the hashing of a loaded machine.
 * Throws when the server's status is not `status` (200, or the refusal the caller expects): a
 * sign-in that failed by surprise is then named, not waited for as a page that never comes.
 */
export async function signIn(page: Page, username: string, password = PASSWORD, status = 200): Promise<void> {
  await signInAs(page, SIGN_IN_WORDS.en, username, password, status);
}

/** The sign-in form's labels and button, in the languages the tests sign in with. */
const SIGN_IN_WORDS = {
  en: { username: 'Username', password: 'Password', submit: 'Sign in' },
  de: { username: 'Benutzername', password: 'Passwort', submit: 'Anmelden' },
};

async function signInAs(
  page: Page,
  words: (typeof SIGN_IN_WORDS)['en'],
  username: string,
  password: string,
  expected: number,
): Promise<void> {
  await tabTo(page, page.getByLabel(words.username));
  await page.keyboard.type(username);
  await tabTo(page, page.getByLabel(words.password));
  await page.keyboard.type(password);
  await tabTo(page, page.getByRole('button', { name: words.submit }));
  const answered = page.waitForResponse(
    (response) =>
      new URL(response.url()).pathname === '/api/v1/auth/login' &&
      response.request().method() === 'POST' &&
      response.status() !== 503,
  );
  await page.keyboard.press('Enter');
  const answer = await answered;
  if (answer.status() !== expected)
    throw new Error(
      `signing in as ${username} answered ${answer.status()}: ${await answer.text().catch(() => '(no body)')}`,
    );
}

/** Signs out from the keyboard: Tab to the header's "Sign out" button and press Enter. */
export async function signOut(page: Page): Promise<void> {
  await tabTo(page, page.getByRole('button', { name: 'Sign out' }));
  await page.keyboard.press('Enter');
}

/** The sidebar's entries. */
export function sidebar(page: Page): Locator {
  return page.getByRole('navigation', { name: 'Modules' }).getByRole('link');
}

/** The sidebar's labels, in order, once the sidebar is on the page. */
export async function sidebarLabels(page: Page): Promise<string[]> {
  await page.getByRole('navigation', { name: 'Modules' }).waitFor();
  return (await sidebar(page).allInnerTexts()).map((label) => label.trim());
}

/**
 * Presses Tab until `target` has the focus, as a keyboard user would; fails after `limit` presses
 * (the target is not reachable by keyboard).
 */
export async function tabTo(page: Page, target: Locator, limit = 40): Promise<void> {
  await target.waitFor();
  for (let presses = 0; presses < limit; presses++) {
    if (await hasFocus(target)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`${String(target)} did not get the focus after ${limit} presses of Tab`);
}

/**
 * What the server answers a GET of `pathname` with the page's session (its cookies): to compare
 * what a page shows with the server's words. Asked anew, because Chromium may discard the body of
 * an answer the page got once the page moves on.
 */
export async function serverAnswer(
  page: Page,
  base: string,
  pathname: string,
): Promise<{ status: number; body: unknown }> {
  const cookie = (await page.context().cookies()).map((found) => `${found.name}=${found.value}`).join('; ');
  const answer = await fetch(`${base}${pathname}`, { headers: { cookie } });
  return { status: answer.status, body: (await answer.json()) as unknown };
}

/**
 * Opens the file chooser of the file field `target` from the keyboard (Tab to it, Space), as a
 * keyboard user would. Asked again when no chooser comes: on a loaded machine Chromium can drop
 * the first key press's activation, and a field that never opens fails all three tries.
 */
export async function chooseFileByKeyboard(page: Page, target: Locator): Promise<FileChooser> {
  let lastError: unknown;
  for (let tries = 0; tries < 3; tries++) {
    await tabTo(page, target);
    try {
      const [chooser] = await Promise.all([
        page.waitForEvent('filechooser', { timeout: 20_000 }),
        page.keyboard.press('Space'),
      ]);
      return chooser;
    } catch (caught) {
      lastError = caught;
    }
  }
  throw lastError;
}

/** Whether `target` holds the keyboard focus now. */
export async function hasFocus(target: Locator): Promise<boolean> {
  return target.evaluate((element) => element === element.ownerDocument.activeElement);
}

/**
 * Asserts that `target` gets the focus. Polled, because a page may move the focus in an effect
 * that runs after the render the test waited for.
 */
export async function focused(t: ExecutionContext, target: Locator, message: string): Promise<void> {
  await eventually(t, () => hasFocus(target), true, message);
}

/**
 * Polls `read` until it returns what `t.deepEqual` accepts as `expected`, then asserts it; on
 * timeout the assertion fails with the last value seen. Polling, not sleeping: the page decides
 * when it is ready. A read that throws (an element the page replaced while it was read, a row not
 * filled yet) counts as not ready; if the last read threw, its error is the failure.
 */
export async function eventually<T>(
  t: ExecutionContext,
  read: () => Promise<T>,
  expected: T,
  message: string,
): Promise<void> {
  const deadline = Date.now() + TIMEOUT;
  const attempt = () =>
    read().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
  let last = await attempt();
  while (!('value' in last && isDeepStrictEqual(last.value, expected)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await attempt();
  }
  if ('error' in last) throw last.error;
  t.deepEqual(last.value, expected, message);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core'), 'utf8');

/** Runs axe-core in the page; fails the test on any serious or critical violation, listing each. */
export async function axeCheck(page: Page, t: ExecutionContext): Promise<void> {
  // Evaluated over the DevTools protocol, not added as a <script>: the page's CSP would block that.
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: () => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations;
  });
  const serious = (violations as AxeViolation[]).filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
  const report = serious
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.helpUrl})\n` +
        violation.nodes
          .map((node) => `  at ${JSON.stringify(node.target)}: ${node.failureSummary ?? ''}`)
          .join('\n'),
    )
    .join('\n');
  t.is(serious.length, 0, `axe found serious or critical violations on ${page.url()}:\n${report}`);
}

/** A full-page PNG under test/browser/artifacts/ (kept by CI, git-ignored) for a person to look at. */
export async function screenshot(
  page: Page,
  name: string,
  options: { timeout?: number } = {},
): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true, ...options });
}

/**
 * Signs in through the form labelled in German (a de-DE browser's sign-in page), from the keyboard
 * as signIn does; returns once the server has answered `status`.
 */
export async function anmelden(
  page: Page,
  username: string,
  password = PASSWORD,
  status = 200,
): Promise<void> {
  await signInAs(page, SIGN_IN_WORDS.de, username, password, status);
}

/** The import wizard's heading of a job in `state` ("Validated"). */
export function importState(page: Page, state: string): Locator {
  return page.getByRole('heading', { name: `State: ${state}` });
}

/**
 * Uploads `file` through the import wizard's New import page (the format guessed from the file's
 * name, the source system "synthea") and validates it: returns once the job is Validated.
 */
export async function uploadAndValidate(page: Page, base: string, file: string): Promise<void> {
  await page.goto(`${base}/migration_import/new`);
  await page.getByLabel('Source file').setInputFiles(file);
  await page.getByRole('textbox', { name: 'Source system' }).fill('synthea');
  await page.getByRole('button', { name: 'Upload' }).click();
  await importState(page, 'Uploaded').waitFor();
  await page.getByRole('button', { name: 'Validate' }).click();
  await importState(page, 'Validated').waitFor();
}

/** Presses the button (or link) named exactly `name` by keyboard: Tab to it, then Enter. */
export async function press(page: Page, name: string, role: 'button' | 'link' = 'button'): Promise<void> {
  await tabTo(page, page.getByRole(role, { name, exact: true }));
  await page.keyboard.press('Enter');
}

/**
 * The appointments grid's rows that hold an appointment: for each, its time and the text of each
 * column (a practitioner's, or a day's), spaces folded.
 */
export async function gridRows(page: Page): Promise<string[][]> {
  const rows = await page.locator('.appointments-grid tbody tr.slot-taken').all();
  return Promise.all(
    rows.map(async (found) => [
      (await found.locator('th').innerText()).trim(),
      ...(await found.locator('td').allInnerTexts()).map((cell) => cell.replace(/\s+/g, ' ').trim()),
    ]),
  );
}

/** A de-DE browser's page at `pathname` of `backend`, signed in as `username` through the German form. */
export async function germanPage(
  browser: LaunchedBrowser,
  t: ExecutionContext,
  backend: Backend,
  username: string,
  pathname = '/',
): Promise<Page> {
  const page = await browser.page(t, { locale: 'de-DE' });
  await page.goto(`${backend.base}${pathname}`);
  await anmelden(page, username);
  return page;
}

/** The smallest PNG: one white pixel, for uploads a preview can decode. */
export const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * Practitioner records by name, each linked to the staff user `username` when given (who then
 * sees their own day on the start page); returns their ids by name.
 */
export async function insertPractitioners(
  knex: Knex,
  practitioners: Array<{ name: string; username?: string }>,
): Promise<Record<string, number>> {
  const rows = await Promise.all(
    practitioners.map(async ({ name, username }) => ({
      name,
      folded_name: foldName(name),
      user_id:
        username === undefined
          ? null
          : ((await knex('base_user').where({ username }).first('id')) as { id: number }).id,
    })),
  );
  const inserted = (await knex('appointments_practitioner').insert(rows).returning(['id', 'name'])) as Array<{
    id: number;
    name: string;
  }>;
  return Object.fromEntries(inserted.map(({ id, name }) => [name, id]));
}

/** A local time, as the appointment pages show them. */
export const localTime = (year: number, month: number, day: number, hour: number, minute = 0) =>
  new Date(year, month - 1, day, hour, minute);

/**
 * A row of appointments_appointment: `patient` and `practitioner` are keys of `ids`, the
 * appointment lasts `minutes` from `start`.
 */
export function appointmentRow(
  ids: Record<string, number>,
  appointment: {
    patient: string;
    practitioner: string;
    start: Date;
    minutes: number;
    reason: string;
    status?: string;
  },
) {
  const { patient, practitioner, start, minutes, reason, status = 'booked' } = appointment;
  return {
    patient_id: ids[patient],
    practitioner_id: ids[practitioner],
    practitioner_name: practitioner,
    start_at: start,
    end_at: new Date(start.getTime() + minutes * 60_000),
    status,
    reason,
  };
}
