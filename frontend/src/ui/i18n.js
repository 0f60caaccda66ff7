/**
 * Languages. The shell speaks the first of the browser's languages (`navigator.languages`) it has
 * a catalogue for, unless the person chose one with the language chooser (remembered in
 * `localStorage`); English otherwise. Messages are ICU MessageFormat (`{count, plural, one {# patient}
 * other {# patients}}`), formatted by `intl-messageformat`, the FormatJS formatter over the
 * browser's own `Intl`: plural rules, numbers and dates come from the browser, so the library adds
 * only the parser. Dates and numbers use the same locale (`formatDate`, `formatNumber`, `locale()`).
 */
import { signal } from '@preact/signals';
import { IntlMessageFormat } from 'intl-messageformat';

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

/** Switches the language and remembers the choice in this browser; sets `<html lang>`. */
export function setLanguage(code) {
  if (!codes.includes(code))
    throw new Error(`there is no catalogue for language "${code}"; choose one of ${codes.join(', ')}`);
  try {
    window.localStorage.setItem(STORAGE_KEY, code);
  } catch {
    // Private modes may refuse storage: the choice then lasts until the page is reloaded.
  }
  language.value = code;
  document.documentElement.lang = code;
}

if (hasWindow) document.documentElement.lang = language.value;

const formats = new Map();

/** `message` (ICU MessageFormat) with `values`, in `lang`; a message that cannot be parsed is shown as written. */
export function formatMessage(message, values, lang) {
  const id = `${lang}\u0000${message}`;
  let format = formats.get(id);
  if (format === undefined) {
    try {
      // Ward's messages name commands such as `ward users grant <user>`: no rich-text tags.
      format = new IntlMessageFormat(message, formattingLocale(lang, browserLanguages()), undefined, {
        ignoreTag: true,
      });
    } catch {
      format = { format: () => message };
    }
    formats.set(id, format);
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
