/**
 * What the web UI tells the person in front of it when Ward refuses a request. Ward's API and CLI
 * speak to operators ("GET /api/v1/openapi.json has the schema", "ward users grant <user> <role>");
 * clinic staff get these sentences instead, chosen by the error's code and, where a form knows it,
 * the field (`"conflict /mrn"`: a clash on the MRN field). One table keyed by code per language
 * (German in messages.de.js, with the same keys, loaded when German is in use). A code it does not
 * know keeps the server's own words: a module's own refusals are written for the people who use
 * its pages. English comes in two parts: the sign-in page's codes here, on the first page, and the
 * signed-in shell's in messages.shell.js, merged into MESSAGES when the shell loads.
 */
import { language } from './i18n.js';
import { loadShellCatalogue, shellCatalogue, t } from './strings.js';
import { forSealingCodes } from './sealing-codes.js';

/**
 * `{message, hint}` by error code, or by `"<code> <field pointer>"` for a form's field: the sign-in
 * page's codes, and every other once the shell's part has loaded.
 */
export const MESSAGES = {
  unauthenticated: { message: 'Your session has ended.', hint: 'Sign in again to continue.' },
  invalid_credentials: {
    message: 'The username or password is not right.',
    hint: 'Check both and try again. If you have forgotten your password, ask your administrator for a new one.',
  },
  too_many_sign_ins: {
    message: 'There have been too many sign-in attempts.',
    hint: 'Wait a few minutes, then try again.',
  },
  sign_in_busy: { message: 'Many people are signing in right now.', hint: 'Try again in a moment.' },
  csrf_failed: { message: 'This page is out of date.', hint: 'Reload the page, then try again.' },
  password_change_required: {
    message: 'Choose your own password before you continue.',
    hint: 'Reload the page to see the password form.',
  },
  user_disabled: {
    message: 'Your account is disabled.',
    hint: 'Ask your administrator if you should still have access.',
  },
  wrong_code: {
    message: 'The code is not right.',
    hint: "Type the 6 digits the app shows for Ward now (each works once), and check that the phone's clock is right.",
  },
  too_many_codes: {
    message: 'Too many wrong codes were tried for your account.',
    hint: 'Wait five minutes, then sign in again. If it was not you, change your password.',
  },
  challenge_expired: {
    message: 'This sign-in took too long.',
    hint: 'Press Start over and sign in again with your password.',
  },
  two_factor_enrolment_required: {
    message: 'Your clinic requires two-factor sign-in, which you have not set up yet.',
    hint: 'Reload the page to set it up.',
  },
  password_change_in_progress: {
    message: 'Your password is already being changed.',
    hint: 'Wait a moment, then sign in with the new password.',
  },
  invalid_body: {
    message: 'Some of what you entered needs correcting.',
    hint: 'Each field to correct says what it needs.',
  },
  network_error: {
    message: 'Ward cannot be reached.',
    hint: 'Check your network connection, then try again. If it keeps happening, tell your administrator.',
  },
  unexpected_response: {
    message: 'Ward cannot be reached.',
    hint: 'Try again in a minute. If it keeps happening, tell your administrator.',
  },
  too_many_requests: { message: 'Ward is busy.', hint: 'Wait a moment, then try again.' },
  unavailable: {
    message: 'Ward is not available just now.',
    hint: 'Try again in a minute. If it keeps happening, tell your administrator.',
  },
  database_unavailable: {
    message: 'Ward is not available just now.',
    hint: 'Try again in a minute. If it keeps happening, tell your administrator.',
  },
  ...forSealingCodes({
    message: 'Two-factor sign-in is not available just now.',
    hint: 'Tell your administrator. To sign in meanwhile, use one of your recovery codes.',
  }),
  auth_unavailable: {
    message: 'Signing in is not available yet.',
    hint: 'Your administrator has not finished setting Ward up; tell them.',
  },
  internal_error: {
    message: 'Something went wrong in Ward.',
    hint: 'Try again. If it keeps happening, tell your administrator what you were doing.',
  },
  shell_unavailable: {
    message: 'Part of Ward could not be loaded.',
    hint: 'Check your network connection, then reload the page. If it keeps happening, tell your administrator.',
  },
};

/** MESSAGES by language: English built in, another language once `loadLanguage` has added it. */
export const ERROR_MESSAGES = { en: MESSAGES };

/** What a form says at a required field left empty, in English (`missingFields` says it in the language in use). */
export const REQUIRED_FIELD = 'Fill in this field.';

/**
 * The sentence for a failed request, for the person in front of the page: `{message, hint,
 * known}` in the language in use, where `known` says it came from MESSAGES (the server's words are then for an
 * administrator only). `field` (a JSON pointer such as `/mrn`) picks a field's sentence first.
 * Anything that is not Ward's error (a layer's own `Error`) keeps its message.
 * @param {any} error
 * @param {string} [field]
 * @returns {{message: string, hint: string, known: boolean}}
 */
export function personMessage(error, field) {
  const code = typeof error?.code === 'string' ? error.code : null;
  const table = ERROR_MESSAGES[language.value] ?? MESSAGES;
  const found = code === null ? undefined : (table[`${code} ${field}`] ?? table[code]);
  if (found !== undefined) return { ...found, known: true };
  // A code of the shell's part, met before it loaded: it loads, and a page showing this redraws.
  if (code !== null && !shellCatalogue.value) void loadShellCatalogue().catch(() => undefined);
  const hint = typeof error?.hint === 'string' ? error.hint : '';
  if (error instanceof Error) return { message: error.message, hint, known: false };
  return { message: String(error), hint: '', known: false };
}

/**
 * `{pointer: REQUIRED_FIELD}` for every one of `required` (field names) whose value in `values` is
 * empty, so a form reports every missing field at once, before anything is sent.
 */
export function missingFields(values, required) {
  const missing = {};
  for (const name of required) {
    const value = values[name];
    if (value === null || value === undefined || (typeof value === 'string' && value.trim() === ''))
      missing[`/${name}`] = t('ui.required');
  }
  return missing;
}
