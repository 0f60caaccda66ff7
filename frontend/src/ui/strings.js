/**
 * `t` over the shell's own catalogues (`frontend/src/locales/`), for the shell and `@ward/ui`:
 * English built in, another language once `loadLanguage` (./languages.js) has added it.
 */
import en from '../locales/en.js';
import { translator } from './i18n.js';

/** The shell's catalogues loaded so far, by language. */
export const SHELL_MESSAGES = { en };

export const t = translator(SHELL_MESSAGES);
