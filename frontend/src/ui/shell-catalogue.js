/**
 * The signed-in shell's part of the English catalogues, merged into the ones the first page
 * brought (SHELL_MESSAGES.en, MESSAGES) when this module runs: the shell and `@ward/ui` import it,
 * so it loads beside them (with the formatter their plurals need); t() loads it should a page ask for one of its keys earlier.
 */
import words from '../locales/en/shell.js';
import { MESSAGES } from './messages.js';
import { SHELL_ERRORS } from './messages.shell.js';
import { SHELL_MESSAGES, shellCatalogue } from './strings.js';
import { loadMessageFormat } from './i18n.js';

// The shell's words have plurals and numbers: the formatter is there before the shell renders.
await loadMessageFormat();

Object.assign(SHELL_MESSAGES.en, words);
Object.assign(MESSAGES, SHELL_ERRORS);
shellCatalogue.value = true;
