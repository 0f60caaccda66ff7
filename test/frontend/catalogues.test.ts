/**
 * The message catalogues: German has every key English has (the shell's words, the server's error
 * codes, each official layer's `frontend/messages.js`), every message is valid ICU MessageFormat,
 * and a translation uses the same placeholders as the English. And how the shell picks a language.
 */
import { readdir, stat } from 'node:fs/promises';
import { registerHooks } from 'node:module';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import fc from 'fast-check';
import { IntlMessageFormat } from 'intl-messageformat';
import { ROOT } from '../../src/config.ts';

const UI = new URL('frontend/src/ui/index.js', `file://${ROOT}/`).href;
registerHooks({
  resolve: (specifier, context, next) => next(specifier === '@ward/ui' ? UI : specifier, context),
});

type Catalogues = Record<string, Record<string, string>>;
const load = async (file: string): Promise<unknown> => await import(new URL(file, `file://${ROOT}/`).href);

const { SHELL_MESSAGES } = (await load('frontend/src/ui/strings.js')) as { SHELL_MESSAGES: Catalogues };
// The whole of English: the sign-in page's part and the shell's (catalogue-parts.test.ts tests the split).
await load('frontend/src/ui/shell-catalogue.js');
const { ERROR_MESSAGES } = (await load('frontend/src/ui/messages.js')) as {
  ERROR_MESSAGES: Record<string, Record<string, { message: string; hint: string }>>;
};
const { pickLanguage, formattingLocale, formatMessage } = (await load('frontend/src/ui/i18n.js')) as {
  pickLanguage: (preferred: (string | null)[], available?: string[]) => string;
  formattingLocale: (language: string, browser: string[]) => string;
  formatMessage: (message: string | unknown[], values: Record<string, unknown>, language: string) => string;
};
const { loadLanguage } = (await load('frontend/src/ui/languages.js')) as {
  loadLanguage: (code: string) => Promise<void>;
};
const { compileCatalogue, compiledCatalogues } = (await load('frontend/catalogues.js')) as {
  compileCatalogue: (
    catalogue: Record<string, string>,
    language: string,
  ) => Record<string, string | unknown[]>;
  compiledCatalogues: () => {
    resolveId: (source: string, importer?: string) => string | null;
    transform: (code: string, id: string) => Promise<{ code: string } | null>;
  };
};

test.serial('only English is built in; another language loads when asked for, once', async (t) => {
  t.deepEqual(Object.keys(SHELL_MESSAGES), ['en']);
  t.deepEqual(Object.keys(ERROR_MESSAGES), ['en']);
  await loadLanguage('de');
  const german = SHELL_MESSAGES.de;
  await loadLanguage('de');
  t.is(SHELL_MESSAGES.de, german, 'a second load keeps the catalogue it has');
  t.is(SHELL_MESSAGES.de?.['signIn.submit'], 'Anmelden');
  t.truthy(ERROR_MESSAGES.de?.invalid_credentials);
  await t.throwsAsync(loadLanguage('fr'), {
    message: /no catalogue for language "fr"; choose one of en, de/,
  });
});

/** The official layers that bring catalogues: `modules/<name>/frontend/messages.js`. */
async function layerCatalogues(): Promise<[string, Catalogues][]> {
  const found: [string, Catalogues][] = [];
  for (const name of (await readdir(path.join(ROOT, 'modules'))).sort()) {
    const file = path.join('modules', name, 'frontend', 'messages.js');
    if (!(await stat(path.join(ROOT, file)).catch(() => null))) continue;
    found.push([name, ((await load(file)) as { default: Catalogues }).default]);
  }
  return found;
}

/** The argument names a message uses (`{name}`, `{n, plural, …}`), sorted. */
function argumentsOf(message: string): string[] {
  const names = new Set<string>();
  const walk = (elements: unknown[]): void => {
    for (const element of elements as {
      type: number;
      value?: string;
      options?: Record<string, { value: unknown[] }>;
    }[]) {
      if (element.type !== 0 && element.type !== 7 && typeof element.value === 'string')
        names.add(element.value);
      for (const option of Object.values(element.options ?? {})) walk(option.value);
    }
  };
  walk(new IntlMessageFormat(message, 'en', undefined, { ignoreTag: true }).getAst());
  return [...names].sort();
}

function sameKeysAndArguments(t: ExecutionContext, name: string, catalogues: Catalogues): void {
  t.truthy(catalogues.en, `${name} has an English catalogue`);
  const english = catalogues.en ?? {};
  for (const [language, catalogue] of Object.entries(catalogues)) {
    if (language === 'en') continue;
    t.deepEqual(
      Object.keys(english).filter((key) => !(key in catalogue)),
      [],
      `${name}: every English key has a ${language} message`,
    );
    t.deepEqual(
      Object.keys(catalogue).filter((key) => !(key in english)),
      [],
      `${name}: no ${language} key that English lacks`,
    );
    for (const key of Object.keys(english))
      if (key in catalogue)
        t.deepEqual(
          argumentsOf(catalogue[key] ?? ''),
          argumentsOf(english[key] ?? ''),
          `${name}: ${language}.${key} uses the placeholders of the English`,
        );
  }
}

test.serial('the shell has a German message for every English one, with the same placeholders', async (t) => {
  await loadLanguage('de');
  t.deepEqual(Object.keys(SHELL_MESSAGES).sort(), ['de', 'en']);
  sameKeysAndArguments(t, 'shell', SHELL_MESSAGES);
});

test.serial('every server error code the UI explains in English is explained in German', async (t) => {
  await loadLanguage('de');
  const german = ERROR_MESSAGES.de ?? {};
  t.deepEqual(Object.keys(german).sort(), Object.keys(ERROR_MESSAGES.en ?? {}).sort());
  for (const [code, { message, hint }] of Object.entries(german)) {
    t.true(message.length > 0 && hint.length > 0, `${code} has a German message and hint`);
    t.not(message, ERROR_MESSAGES.en?.[code]?.message, `${code}'s German message is translated`);
  }
});

test('every official layer with catalogues has German beside English, with the same placeholders', async (t) => {
  const layers = await layerCatalogues();
  t.true(
    layers.some(([name]) => name === 'patients'),
    'the patients layer brings catalogues',
  );
  for (const [name, catalogues] of layers) sameKeysAndArguments(t, name, catalogues);
});

test('the language is the first preferred one with a catalogue, else English', (t) => {
  t.is(pickLanguage(['de-DE', 'en-US']), 'de');
  t.is(pickLanguage(['en-US', 'de-DE']), 'en');
  t.is(pickLanguage([null, 'fr-FR', 'de-AT']), 'de');
  t.is(pickLanguage(['de', 'en-US']), 'de', 'a stored choice comes first');
  t.is(pickLanguage(['fr-FR']), 'en');
  t.is(pickLanguage([]), 'en');
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.string(), fc.constant(null))), (preferred) =>
      ['en', 'de'].includes(pickLanguage(preferred)),
    ),
  );
});

test("dates and numbers keep the browser's regional format of the chosen language", (t) => {
  t.is(formattingLocale('de', ['en-US', 'de-AT']), 'de-AT');
  t.is(formattingLocale('en', ['en-US', 'de-AT']), 'en-US');
  t.is(formattingLocale('de', ['en-US']), 'de');
});

test.serial('a compiled catalogue formats every shell message as its ICU text does', async (t) => {
  await loadLanguage('de');
  for (const [language, catalogue] of Object.entries(SHELL_MESSAGES)) {
    const compiled = compileCatalogue(catalogue, language);
    t.deepEqual(Object.keys(compiled), Object.keys(catalogue));
    for (const [key, message] of Object.entries(catalogue)) {
      const names = argumentsOf(message);
      fc.assert(
        fc.property(fc.nat(1000), fc.string(), (n, text) => {
          // A count for plurals and numbers, text elsewhere: the same values for both forms.
          const values = Object.fromEntries(
            names.map((name) => [name, /^(n|left|page|count)$/.test(name) ? n : text]),
          );
          const expected = new IntlMessageFormat(message, language, undefined, { ignoreTag: true }).format(
            values,
          );
          t.is(formatMessage(compiled[key] ?? '', values, language), String(expected), `${language}.${key}`);
        }),
        { numRuns: 20 },
      );
    }
  }
});

test('a message that is not valid ICU fails the build, naming its key', (t) => {
  t.throws(() => compileCatalogue({ 'x.broken': 'Hello {name' }, 'en'), {
    message: /^the en message "x\.broken" is not valid ICU MessageFormat/,
  });
  t.deepEqual(compileCatalogue({ plain: 'Sign in' }, 'en'), { plain: 'Sign in' }, 'plain text stays text');
});

test('text with ICU syntax waits for the parser, a plural for the formatter; plain arguments need neither', async (t) => {
  const {
    formatMessage: fresh,
    loadMessageParser,
    loadMessageFormat,
  } = (await import(`${new URL('frontend/src/ui/i18n.js', `file://${ROOT}/`).href}?fresh`)) as {
    formatMessage: typeof formatMessage;
    loadMessageParser: () => Promise<void>;
    loadMessageFormat: () => Promise<void>;
  };
  const [tree] = Object.values(compileCatalogue({ k: 'Hi {user}' }, 'en'));
  t.is(fresh(tree ?? '', { user: 'Ada' }, 'en'), 'Hi Ada');
  t.is(fresh('Sign in', {}, 'en'), 'Sign in');
  t.is(fresh('Hi {user}', { user: 'Ada' }, 'en'), 'Hi {user}', 'shown as written before the parser');
  const [plural] = Object.values(compileCatalogue({ k: '{n, plural, one {# file} other {# files}}' }, 'en'));
  t.is(
    fresh(plural ?? '', { n: 2 }, 'en'),
    '',
    'a plural shows nothing, not its syntax, before the formatter',
  );
  await loadMessageFormat();
  t.is(fresh(plural ?? '', { n: 2 }, 'en'), '2 files');
  await loadMessageParser();
  t.is(fresh('Hi {user}', { user: 'Ada' }, 'en'), 'Hi Ada');
  t.is(fresh('{n, plural, one {# file} other {# files}}', { n: 2 }, 'en'), '2 files');
});

test('the build compiles locale files and gives intl-messageformat no parser, and nothing else', async (t) => {
  const plugin = compiledCatalogues();
  const locale = path.join(ROOT, 'frontend', 'src', 'locales', 'en', 'sign-in.js');
  const built = await plugin.transform("export default { plain: 'Sign in', hello: 'Hi {user}' };", locale);
  const { default: compiled } = (await import(
    `data:text/javascript,${encodeURIComponent(built?.code ?? '')}`
  )) as { default: Record<string, unknown> };
  t.deepEqual(compiled, compileCatalogue({ plain: 'Sign in', hello: 'Hi {user}' }, 'en'));
  t.truthy(
    await plugin.transform('export default {};', path.join(ROOT, 'frontend', 'src', 'locales', 'de.js')),
  );
  t.is(await plugin.transform('export default {};', path.join(ROOT, 'frontend', 'src', 'app.js')), null);

  const parser = '@formatjs/icu-messageformat-parser';
  const formatter = path.join(ROOT, 'node_modules', 'intl-messageformat', 'index.js');
  t.regex(plugin.resolveId(parser, formatter) ?? '', /icu-messageformat-parser[\\/]no-parser\.js$/);
  t.is(
    plugin.resolveId(parser, path.join(ROOT, 'frontend', 'src', 'ui', 'i18n.js')),
    null,
    'the lazy parser is the real one',
  );
  t.is(plugin.resolveId('intl-messageformat', formatter), null);
});
