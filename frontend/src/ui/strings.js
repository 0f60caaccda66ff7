/**
 * `t` over the shell's own catalogues (`frontend/src/locales/`), for the shell and `@ward/ui`.
 * English comes in two parts: the sign-in page's words (`locales/en/sign-in.js`) are on the first
 * page, the rest (`locales/en/shell.js`) load with the signed-in shell (./shell-catalogue.js).
 * Another language is added whole once `loadLanguage` (./languages.js) has loaded it.
 */
import { signal } from '@preact/signals';
import signIn from '../locales/en/sign-in.js';
import { language, translator } from './i18n.js';

/** The shell's catalogues loaded so far, by language. */
export const SHELL_MESSAGES = { en: { ...signIn } };

/** Whether the shell's part of English (words and error sentences) has loaded. */
export const shellCatalogue = signal(false);

let loading = null;
/** Loads the shell's part of English, once; the signed-in shell imports it itself. */
export function loadShellCatalogue() {
  loading ??= import('./shell-catalogue.js');
  return loading;
}

const translate = translator(SHELL_MESSAGES);

/**
 * The message `key` in the language in use. A key of the shell's part asked for before that part
 * has loaded reads as blank rather than as the key: the part starts loading, and a component that
 * asked redraws when it is there.
 * @param {string} key
 * @param {Record<string, any>} [values]
 */
export function t(key, values) {
  if (
    !shellCatalogue.value &&
    SHELL_MESSAGES[language.value]?.[key] === undefined &&
    !(key in SHELL_MESSAGES.en)
  ) {
    void loadShellCatalogue().catch(() => undefined);
    return '';
  }
  return translate(key, values);
}
