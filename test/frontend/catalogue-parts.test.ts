/**
 * The English catalogues come in two parts: the sign-in page's, on the first page, and the
 * signed-in shell's, loaded with the shell. Every word and error sentence the first page can show
 * is in its part, no key is in both, and a key of the shell's part asked for early reads as
 * nothing (never as the key) until that part has loaded, which asking starts.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { ROOT } from '../../src/config.ts';

type Catalogue = Record<string, string>;
type Errors = Record<string, { message: string; hint: string }>;
const load = async (file: string): Promise<unknown> => await import(new URL(file, `file://${ROOT}/`).href);

const { default: signInWords } = (await load('frontend/src/locales/en/sign-in.js')) as { default: Catalogue };
const { default: shellWords } = (await load('frontend/src/locales/en/shell.js')) as { default: Catalogue };
const { SHELL_ERRORS } = (await load('frontend/src/ui/messages.shell.js')) as { SHELL_ERRORS: Errors };
const strings = (await load('frontend/src/ui/strings.js')) as {
  SHELL_MESSAGES: Record<string, Catalogue>;
  shellCatalogue: { value: boolean };
  loadShellCatalogue: () => Promise<unknown>;
  t: (key: string, values?: Record<string, unknown>) => string;
};
const { MESSAGES } = (await load('frontend/src/ui/messages.js')) as { MESSAGES: Errors };
/** The sign-in page's error sentences, as the first page has them before the shell's part loads. */
const signInErrors = { ...MESSAGES };

/** The first page's modules, whose every `t('…')` key must be in the sign-in part. */
const FIRST_PAGE = ['sign-in.js', 'state.js', 'app.js', 'main.js'];
/** The error codes the sign-in page and its "not answering" page can meet. */
const SIGN_IN_CODES = [
  'unauthenticated',
  'invalid_credentials',
  'too_many_sign_ins',
  'sign_in_busy',
  'user_disabled',
  'password_change_required',
  'password_change_in_progress',
  'wrong_code',
  'too_many_codes',
  'challenge_expired',
  'two_factor_enrolment_required',
  'csrf_failed',
  'invalid_body',
  'network_error',
  'unexpected_response',
  'too_many_requests',
  'unavailable',
  'database_unavailable',
  'auth_unavailable',
  'internal_error',
  'shell_unavailable',
];

async function keysUsedBy(file: string): Promise<string[]> {
  const source = await readFile(path.join(ROOT, 'frontend', 'src', file), 'utf8');
  return [...source.matchAll(/\bt\('([^']+)'/g)].map((found) => found[1] ?? '');
}

test.serial('every key the first page asks for is in the sign-in part', async (t) => {
  const keys = (await Promise.all(FIRST_PAGE.map(keysUsedBy))).flat();
  t.true(
    keys.includes('signIn.submit') && keys.includes('twoFactor.code') && keys.includes('shell.language'),
  );
  t.deepEqual(
    keys.filter((key) => !(key in signInWords)),
    [],
  );
  // The banners, fields and "Loading…" of ui/forms.js the sign-in page draws.
  for (const key of ['ui.details', 'ui.loading', 'ui.required']) t.true(key in signInWords, key);
});

test.serial('every error code the sign-in page can meet has its sentence in the sign-in part', async (t) => {
  const source = await readFile(path.join(ROOT, 'frontend', 'src', 'sign-in.js'), 'utf8');
  const named = [...source.matchAll(/'([a-z]+(?:_[a-z]+)+)'/g)].map((found) => found[1] ?? '');
  t.true(named.includes('challenge_expired'));
  t.deepEqual(
    [...new Set([...SIGN_IN_CODES, ...named])].filter((code) => !(code in signInErrors)),
    [],
  );
});

test.serial('no word or error sentence is in both parts', (t) => {
  t.deepEqual(
    Object.keys(shellWords).filter((key) => key in signInWords),
    [],
  );
  t.deepEqual(
    Object.keys(SHELL_ERRORS).filter((code) => code in signInErrors),
    [],
  );
});

test.serial(
  "a shell key asked for early reads as nothing, loads the shell's part, then reads as itself",
  async (t) => {
    t.false(strings.shellCatalogue.value);
    t.is(strings.t('signIn.submit'), 'Sign in');
    t.is(strings.t('home.empty'), '', 'not the key "home.empty"');
    await strings.loadShellCatalogue();
    t.true(strings.shellCatalogue.value);
    t.is(strings.t('home.empty'), 'Nothing to open yet');
    t.truthy(MESSAGES.conflict, 'the shell error sentences are merged too');
    t.is(
      strings.t('no.such.key'),
      'no.such.key',
      'a key in no part, once all have loaded, shows to be fixed',
    );
  },
);
