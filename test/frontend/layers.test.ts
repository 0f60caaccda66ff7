/**
 * The shell's check of a layer's default export (frontend/src/layers.js), extensions included. The
 * shell is the browser's JavaScript: `@ward/ui`, which the import map resolves there, is resolved
 * here to the same file by a resolve hook.
 */
import { registerHooks } from 'node:module';
import test from 'ava';
import { ROOT } from '../../src/config.ts';

const UI = new URL('frontend/src/ui/index.js', `file://${ROOT}/`).href;
registerHooks({
  resolve: (specifier, context, next) => next(specifier === '@ward/ui' ? UI : specifier, context),
});

interface Layers {
  contractProblem: (layer: unknown) => string | null;
}
const { contractProblem } = (await import(
  new URL('frontend/src/layers.js', `file://${ROOT}/`).href
)) as Layers;

const Part = () => null;
const page = { path: '/notes', render: () => undefined };
const layer = (extensions: unknown) => ({ sdk: '^1.3.0', routes: [page], extensions });

test('a layer may contribute extensions to slots, or none', (t) => {
  t.is(contractProblem({ sdk: '^1.0.0', routes: [page] }), null);
  t.is(contractProblem(layer([])), null);
  t.is(
    contractProblem(
      layer([
        { slot: 'patient.chart', component: Part },
        { slot: 'home.today', component: Part, permission: 'notes.note.read', order: 5 },
      ]),
    ),
    null,
  );
  t.is(contractProblem({ sdk: '^1.3.0', routes: [], extensions: [{ slot: 'a.b', component: Part }] }), null);
});

test('an extension that breaks the contract is refused, naming what to fix', (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [{ slot: 'patient.chart' }, /the extension for slot patient\.chart needs a `component`/],
    [{ slot: 'Patient Chart', component: Part }, /lowercase words joined by dots.*"Patient Chart"/],
    [{ slot: 'chart', component: Part }, /lowercase words joined by dots.*"chart"/],
    [{ component: Part }, /needs a `slot` name.*\(got undefined\)/],
    [null, /needs a `slot` name/],
    [{ slot: 'a.b', component: Part, permission: 7 }, /`permission` that is not a permission name/],
    [{ slot: 'a.b', component: Part, order: 'first' }, /`order` that is not a number/],
  ];
  for (const [extension, expected] of cases)
    t.regex(contractProblem(layer([extension])) ?? '', expected, JSON.stringify(extension));
  t.regex(contractProblem(layer({ slot: 'a.b' })) ?? '', /`extensions` is not an array/);
});
