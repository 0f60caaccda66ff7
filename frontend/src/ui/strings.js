/** `t` over the shell's own catalogues (`frontend/src/locales/`), for the shell and `@ward/ui`. */
import de from '../locales/de.js';
import en from '../locales/en.js';
import { translator } from './i18n.js';

export const SHELL_MESSAGES = { en, de };

export const t = translator(SHELL_MESSAGES);
