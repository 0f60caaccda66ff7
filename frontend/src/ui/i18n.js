/**
 * Languages. The shell speaks the first of the browser's languages (`navigator.languages`) it has
 * a catalogue for, unless the person chose one with the language chooser (remembered in
 * `localStorage`); English otherwise. Messages are ICU MessageFormat (`{count, plural, one {# patient}
 * other {# patients}}`), formatted by `intl-messageformat`, the FormatJS formatter over the
 * browser's own `Intl`: plural rules, numbers and dates come from the browser. The shell's own
 * catalogues arrive compiled (`frontend/catalogues.js`: plain text, or an ICU syntax tree), so the
 * first page needs no ICU parser; the parser loads with the module layers (`loadMessageParser`),
 * whose catalogues come as written. The first page needs no formatter either: its messages are
 * text with at most plain `{name}` arguments, filled in here; `intl-messageformat` (plurals,
 * selects, numbers, dates) loads with the signed-in shell (`loadMessageFormat`). Only the sign-in
 * page's English is on the first page (./strings.js); another language's catalogue loads when it
 * is chosen (`loadLanguage`, ./languages.js). Dates and numbers use the same locale (`formatDate`,
 * `formatNumber`, `locale()`).
 */
import { signal } from '@preact/signals';

/** The languages the shell ships complete catalogues for; English is the fallback. */
export const LANGUAGES = [
  { code: 'en', name: 'English' },
  { code: 'de', name: 'Deutsch' },
];

const STORAGE_KEY = 'ward.language';
const codes = LANGUAGES.map((language) => language.code);

/**
 * The language to speak: the first of `preferred` (the person's choice, then the browser's
 * languages, as BCP 47 tags) whose primary language is one of `available`, else the first of
 * `available`. Pure.
 * @param {readonly (string | null | undefined)[]} preferred
 * @param {readonly string[]} [available]
 */
export function pickLanguage(preferred, available = codes) {
  for (const tag of preferred) {
    const primary = typeof tag === 'string' ? tag.split('-')[0].toLowerCase() : '';
    if (available.includes(primary)) return primary;
  }
  return available[0];
}

/**
 * The locale dates and numbers are formatted in: the browser's own tag when it is of `language`
 * (de-AT keeps Austrian formats), else the language itself. Pure.
 * @param {string} language
 * @param {readonly string[]} browser
 */
export function formattingLocale(language, browser) {
  return browser.find((tag) => tag.split('-')[0].toLowerCase() === language) ?? language;
}

const hasWindow = typeof window !== 'undefined';
const browserLanguages = () => (hasWindow ? [...(navigator.languages ?? [navigator.language])] : []);
const stored = () => {
  try {
    return hasWindow ? window.localStorage.getItem(STORAGE_KEY) : null;
  } catch {
    return null;
  }
};

/** The language in use ('en', 'de'); components that read it redraw when it changes. */
export const language = signal(pickLanguage([stored(), ...browserLanguages()]));

/** The locale for `Intl` formatting, following `language`. */
export const locale = () => formattingLocale(language.value, browserLanguages());

/** Throws when there is no catalogue for `code`, naming the languages there are. */
export function checkLanguage(code) {
  if (!codes.includes(code))
    throw new Error(`there is no catalogue for language "${code}"; choose one of ${codes.join(', ')}`);
}

/** Makes `code` the language in use and remembers the choice in this browser; sets `<html lang>`. */
export function applyLanguage(code) {
  checkLanguage(code);
  try {
    window.localStorage.setItem(STORAGE_KEY, code);
  } catch {
    // Private modes may refuse storage: the choice then lasts until the page is reloaded.
  }
  language.value = code;
  document.documentElement.lang = code;
}

if (hasWindow) document.documentElement.lang = language.value;

/** `intl-messageformat`'s formatter class, once `loadMessageFormat` has loaded it. */
let IntlMessageFormat = null;
/** Whether the formatter has loaded: a message that needed it before then is drawn again. */
const formatterLoaded = signal(false);

/**
 * Loads `intl-messageformat`, which a message with more than plain arguments needs (a plural, a
 * select, a number or date format). The signed-in shell awaits it before it renders.
 * @returns {Promise<void>}
 */
export async function loadMessageFormat() {
  if (IntlMessageFormat !== null) return;
  ({ IntlMessageFormat } = await import('intl-messageformat'));
  formatterLoaded.value = true;
}

// The ICU syntax tree's element types (`TYPE` of @formatjs/icu-messageformat-parser).
const LITERAL = 0;
const ARGUMENT = 1;

/**
 * A compiled message made only of text and plain `{name}` arguments, filled in with `values` as
 * `intl-messageformat` does (a missing or empty value as nothing); null for anything else. Pure.
 * @param {unknown[]} elements
 * @param {Record<string, any> | undefined} values
 */
export function formatSimple(elements, values) {
  let text = '';
  for (const element of /** @type {{type: number, value: string}[]} */ (elements)) {
    if (element.type === LITERAL) text += element.value;
    else if (element.type === ARGUMENT) text += String(values?.[element.value] ?? '');
    else return null;
  }
  return text;
}

/** The ICU parser, once `loadMessageParser` has loaded it. */
let parse = null;

/**
 * Loads the ICU parser, which messages written as text with ICU syntax (the layers' catalogues)
 * need; the shell's own arrive parsed. The shell awaits it beside the layers, before any renders.
 * @returns {Promise<void>}
 */
export async function loadMessageParser() {
  parse ??= (await import('@formatjs/icu-messageformat-parser')).parse;
}

/** Plain text to ICU: no argument, and no quote that could escape one. */
const PLAIN = /^[^{}']*$/;
// Ward's messages name commands such as `ward users grant <user>`: no rich-text tags.
const PARSE_OPTIONS = { ignoreTag: true, shouldParseSkeletons: true };
const formats = new Map();

/**
 * The formatter of `message` in `formatting`, or null when the formatter, or the parser `message`
 * as text needs, is not loaded yet.
 */
function compile(message, formatting) {
  if (IntlMessageFormat === null) return null;
  if (typeof message !== 'string') return new IntlMessageFormat(message, formatting);
  if (parse === null) return null;
  return new IntlMessageFormat(
    parse(message, { ...PARSE_OPTIONS, locale: new Intl.Locale(formatting) }),
    formatting,
  );
}

/**
 * `message` with `values`, in `lang`: ICU MessageFormat as text, or as its syntax tree (a compiled
 * catalogue's). A message that cannot be parsed, or text with ICU syntax before the parser has
 * loaded, is shown as written; a syntax tree beyond text and plain arguments, before the formatter
 * has loaded, as nothing until it has (it starts loading, and a component that asked redraws).
 * @param {string | unknown[]} message
 * @param {Record<string, any> | undefined} values
 * @param {string} lang
 */
export function formatMessage(message, values, lang) {
  if (typeof message === 'string' && PLAIN.test(message)) return message;
  if (Array.isArray(message)) {
    const simple = formatSimple(message, values);
    if (simple !== null) return simple;
  }
  const formatting = formattingLocale(lang, browserLanguages());
  let byLocale = formats.get(formatting);
  if (byLocale === undefined) formats.set(formatting, (byLocale = new Map()));
  let format = byLocale.get(message);
  if (format === undefined) {
    try {
      format = compile(message, formatting);
    } catch {
      format = { format: () => message };
    }
    // A message seen before the formatter or parser loaded is not kept: the next call, after, formats it.
    if (format === null) {
      if (typeof message === 'string') return message;
      void loadMessageFormat().catch(() => undefined);
      // Read so that a component showing nothing here redraws once the formatter is there.
      void formatterLoaded.value;
      return '';
    }
    byLocale.set(message, format);
  }
  return String(format.format(values));
}

/**
 * `t(key, values)` over `catalogues` (`{en: {key: message}, de: {…}}`): the message in the current
 * language, else the English one, else the key itself (so a missing message shows, not a blank).
 * Reading it in a component redraws the component when the language changes.
 * @param {Record<string, Record<string, string>>} catalogues
 * @returns {(key: string, values?: Record<string, any>) => string}
 */
export function translator(catalogues) {
  return (key, values) => {
    const lang = language.value;
    const message = catalogues[lang]?.[key] ?? catalogues.en?.[key];
    return message === undefined ? key : formatMessage(message, values, lang);
  };
}

/**
 * A date (a `Date` or an ISO string) in the current locale; `options` as `Intl.DateTimeFormat`'s.
 * @param {Date | string | number} value
 * @param {Intl.DateTimeFormatOptions} [options]
 */
export function formatDate(value, options) {
  return new Intl.DateTimeFormat(locale(), options).format(value instanceof Date ? value : new Date(value));
}

/**
 * A number in the current locale; `options` as `Intl.NumberFormat`'s.
 * @param {number} value
 * @param {Intl.NumberFormatOptions} [options]
 */
export function formatNumber(value, options) {
  return new Intl.NumberFormat(locale(), options).format(value);
}
