/**
 * The shell's message catalogues, compiled at build time. Each ICU message of
 * `frontend/src/locales/<language>.js` (or of a part of one, `locales/<language>/<part>.js`) is
 * parsed here, with the parser `intl-messageformat` would run in the browser, and ships as its syntax tree; a message with no ICU syntax ships as the text
 * it is. The browser then formats with `intl-messageformat` alone: its parser (the larger part of
 * the library) is left out of the shell, built as a chunk of its own that loads with the module
 * layers, whose catalogues come as written.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { parse } from '@formatjs/icu-messageformat-parser';

/** Whether `message` is plain text to ICU: no argument, and no quote that could escape one. Pure. */
export const isPlainText = (message) => !/[{}']/.test(message);

/**
 * `catalogue` (`{key: ICU message}`) with each message as the browser's formatter takes it: plain
 * text as is, anything else as its syntax tree. Parses as `formatMessage` does in the browser (no
 * rich-text tags); throws on a message that is not valid ICU, naming its key. Pure.
 * @param {Record<string, string>} catalogue
 * @param {string} language
 */
export function compileCatalogue(catalogue, language) {
  const locale = new Intl.Locale(language);
  return Object.fromEntries(
    Object.entries(catalogue).map(([key, message]) => {
      if (isPlainText(message)) return [key, message];
      try {
        return [key, parse(message, { ignoreTag: true, shouldParseSkeletons: true, locale })];
      } catch (error) {
        throw new Error(`the ${language} message "${key}" is not valid ICU MessageFormat: ${error.message}`, {
          cause: error,
        });
      }
    }),
  );
}

/** A catalogue: `locales/<language>.js`, or a part of one, `locales/<language>/<part>.js`. */
const LOCALE_FILE = /[\\/]frontend[\\/]src[\\/]locales[\\/]([a-z]{2,3})(?:[\\/][a-z-]+)?\.js$/;
const PARSER = '@formatjs/icu-messageformat-parser';
const require = createRequire(import.meta.url);

/**
 * The Vite plugin: compiles each locale file, and gives `intl-messageformat` the parser package's
 * `no-parser` entry (the same type checks, no parser), as FormatJS documents for precompiled
 * messages. The shell's own dynamic import of the parser still gets the real one.
 */
export function compiledCatalogues() {
  return {
    name: 'ward-compiled-catalogues',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source !== PARSER || importer === undefined) return null;
      if (!importer.split(path.sep).join('/').includes('/node_modules/intl-messageformat/')) return null;
      return require.resolve(`${PARSER}/no-parser.js`);
    },
    async transform(code, id) {
      const found = LOCALE_FILE.exec(id);
      if (found === null) return null;
      // A locale file is data with no imports: evaluated from the code at hand, so the dev server
      // compiles each edit afresh, where importing the file would keep its first version.
      const { default: catalogue } = await import(`data:text/javascript,${encodeURIComponent(code)}`);
      return { code: `export default ${JSON.stringify(compileCatalogue(catalogue, found[1]))};`, map: null };
    },
  };
}
