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
const { ERROR_MESSAGES } = (await load('frontend/src/ui/messages.js')) as {
  ERROR_MESSAGES: Record<'en' | 'de', Record<string, { message: string; hint: string }>>;
};
const { pickLanguage, formattingLocale } = (await load('frontend/src/ui/i18n.js')) as {
  pickLanguage: (preferred: (string | null)[], available?: string[]) => string;
  formattingLocale: (language: string, browser: string[]) => string;
};

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

test('the shell has a German message for every English one, with the same placeholders', (t) => {
  t.deepEqual(Object.keys(SHELL_MESSAGES).sort(), ['de', 'en']);
  sameKeysAndArguments(t, 'shell', SHELL_MESSAGES);
});

test('every server error code the UI explains in English is explained in German', (t) => {
  t.deepEqual(Object.keys(ERROR_MESSAGES.de).sort(), Object.keys(ERROR_MESSAGES.en).sort());
  for (const [code, { message, hint }] of Object.entries(ERROR_MESSAGES.de)) {
    t.true(message.length > 0 && hint.length > 0, `${code} has a German message and hint`);
    t.not(message, ERROR_MESSAGES.en[code]?.message, `${code}'s German message is translated`);
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
