/**
 * The sidebar's order: by each entry's `order`, then by module name, then as the manifest lists
 * them; an entry without an order stands after the clinical pages and before administration.
 */
import test from 'ava';
import fc from 'fast-check';
import { discover } from '../../src/manifests/discover.ts';
import { DEFAULT_NAVIGATION_ORDER, orderedNavigation } from '../../src/manifests/navigation.ts';
import { ROOT } from '../../src/config.ts';
import { byName } from '../../src/planner/graph.ts';

test("the official modules' entries stand in a clinic's order: clinical pages first, administration last", async (t) => {
  const inventory = await discover({ root: ROOT, modulePaths: [], packageRoot: ROOT });
  const modules = [...inventory.modules.values()].map((module) => ({
    name: module.name,
    navigation: module.manifest.navigation ?? [],
  }));
  t.deepEqual(
    orderedNavigation(modules).map((entry) => entry.label),
    ['Patients', 'Appointments', 'Documents', 'Data import', 'Practitioners', 'Modules', 'Staff', 'Audit'],
  );
  const community = {
    name: 'aaa_vitals',
    navigation: [{ label: 'Vitals', path: '/vitals', permission: 'x.y' }],
  };
  const labels = orderedNavigation([...modules, community]).map((entry) => entry.label);
  t.deepEqual(labels, [
    'Patients',
    'Appointments',
    'Documents',
    'Vitals',
    'Data import',
    'Practitioners',
    'Modules',
    'Staff',
    'Audit',
  ]);
});

/** Each entry labelled `<module>#<index in its manifest>`, so the test can tell where it came from. */
const modules = fc
  .uniqueArray(
    fc.record({
      name: fc.stringMatching(/^[a-z][a-z0-9_]{0,5}$/),
      orders: fc.array(fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined }), { maxLength: 4 }),
    }),
    { selector: (module) => module.name, maxLength: 6 },
  )
  .map((list) =>
    list.map(({ name, orders }) => ({
      name,
      navigation: orders.map((order, index) => ({
        label: `${name}#${index}`,
        path: '/x',
        permission: 'x.y',
        ...(order === undefined ? {} : { order }),
      })),
    })),
  );

test('every entry appears once, ordered by order, then module name, then its place in the manifest', (t) => {
  fc.assert(
    fc.property(modules, (input) => {
      const ordered = orderedNavigation(input);
      const sources = new Map(
        input.flatMap((module) =>
          module.navigation.map(
            (entry, index) =>
              [
                entry.label,
                { module: module.name, index, order: entry.order ?? DEFAULT_NAVIGATION_ORDER },
              ] as const,
          ),
        ),
      );
      t.deepEqual(ordered.map((entry) => entry.label).sort(), [...sources.keys()].sort());
      const keys = ordered.map((entry) => {
        const source = sources.get(entry.label)!;
        t.is(entry.module, source.module);
        t.is(entry.order, source.order);
        return source;
      });
      for (let at = 1; at < keys.length; at++) {
        const [a, b] = [keys[at - 1]!, keys[at]!];
        t.true(
          a.order < b.order ||
            (a.order === b.order &&
              (byName(a.module, b.module) < 0 || (a.module === b.module && a.index < b.index))),
        );
      }
    }),
  );
});
