/**
 * The shell links and routes only to paths of this site, by the same rule the manifest schema
 * applies to navigation paths: a single leading /, no whitespace, no control characters.
 */
import test from 'ava';
import { Ajv } from 'ajv';
import fc from 'fast-check';
import { ROOT } from '../../src/config.ts';
import schema from '../../src/manifests/manifest.schema.json' with { type: 'json' };

// The shell's JavaScript is the browser's: loaded by URL, so TypeScript does not look for its types.
const { isShellPath } = (await import(new URL('frontend/src/paths.js', `file://${ROOT}/`).href)) as {
  isShellPath: (path: unknown) => boolean;
};

const routePath = new Ajv().compile({ ...schema.definitions.routePath, $schema: undefined });

test('the shell refuses a path a browser would read as another site or strip characters from', (t) => {
  for (const path of [
    '/\t/127.0.0.1:18601/x',
    '/\n/evil.example',
    '//evil.example',
    '/\\evil.example',
    '/a b',
    '/\u0000',
    'patients',
    '',
    null,
  ])
    t.false(isShellPath(path), JSON.stringify(path));
  for (const path of ['/', '/patients', '/patients/12?tab=visits#top', '/documents/a%20b'])
    t.true(isShellPath(path), path);
});

test('the shell and the manifest schema agree on every path', (t) => {
  const characters = fc.constantFrom(
    '/',
    '\\',
    'a',
    '1',
    '.',
    '?',
    '#',
    '%',
    ' ',
    '\t',
    '\n',
    '\r',
    '\u0000',
    '\u001f',
    '\u007f',
    '\u0085',
    '\u00a0',
    '\u2028',
    '\ufeff',
    'é',
  );
  fc.assert(
    fc.property(
      fc.array(characters, { maxLength: 8 }).map((chars) => chars.join('')),
      (path) => {
        t.is(isShellPath(path), routePath(path), JSON.stringify(path));
      },
    ),
    { numRuns: 2000 },
  );
  fc.assert(fc.property(fc.string({ unit: 'binary' }), (path) => isShellPath(path) === routePath(path)));
});
