/**
 * The shell's catalogues beyond English. English (the shell's words and the error sentences) is
 * the fallback every other language and every layer falls back to: the sign-in page's part is on
 * the first page, the rest loads with the signed-in shell (./strings.js). Each other language is a
 * chunk of its own, whole, loaded only when it is the one to speak, so a browser downloads
 * the catalogues of no language it does not use. The shell awaits the language in use before its
 * first render (main.js), so a German browser sees German from the first frame.
 */
import { applyLanguage, checkLanguage } from './i18n.js';
import { ERROR_MESSAGES } from './messages.js';
import { SHELL_MESSAGES } from './strings.js';

/** Each language's catalogues, besides English's: the shell's words and the error sentences. */
const LOADERS = {
  de: async () => {
    const [words, errors] = await Promise.all([import('../locales/de.js'), import('./messages.de.js')]);
    return { words: words.default, errors: errors.MESSAGES_DE };
  },
};

/**
 * Loads the shell's catalogues of `code` (once; English is always there) into SHELL_MESSAGES and
 * ERROR_MESSAGES. Throws on a language with no catalogue.
 * @param {string} code
 * @returns {Promise<void>}
 */
export async function loadLanguage(code) {
  checkLanguage(code);
  const load = LOADERS[code];
  if (load === undefined || SHELL_MESSAGES[code] !== undefined) return;
  const { words, errors } = await load();
  SHELL_MESSAGES[code] = words;
  ERROR_MESSAGES[code] = errors;
}

/**
 * Switches the language, once its catalogues have loaded, and remembers the choice in this
 * browser; sets `<html lang>`.
 * @param {string} code
 * @returns {Promise<void>}
 */
export async function setLanguage(code) {
  await loadLanguage(code);
  applyLanguage(code);
}
