import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import { orderByForeignKeys } from '../../src/backup/table-order.ts';
import type { ForeignKeyEdge } from '../../src/backup/table-order.ts';

const edge = (child: string, parent: string): ForeignKeyEdge => ({ child, parent });

test('tables without foreign keys come in name order', (t) => {
  t.deepEqual(orderByForeignKeys(['c', 'a', 'b'], []), { order: ['a', 'b', 'c'], cyclic: false });
});

test('a chain named children first comes out parents first', (t) => {
  const edges = [edge('visit', 'patient'), edge('prescription', 'visit')];
  t.deepEqual(orderByForeignKeys(['prescription', 'visit', 'patient'], edges), {
    order: ['patient', 'visit', 'prescription'],
    cyclic: false,
  });
});

test('a diamond puts the shared parent first and the shared child last', (t) => {
  const edges = [edge('b', 'a'), edge('c', 'a'), edge('d', 'b'), edge('d', 'c')];
  t.deepEqual(orderByForeignKeys(['d', 'c', 'b', 'a'], edges).order, ['a', 'b', 'c', 'd']);
});

test('references to tables outside the backup do not affect the order', (t) => {
  t.deepEqual(orderByForeignKeys(['b', 'a'], [edge('a', 'core_user'), edge('b', 'a')]), {
    order: ['a', 'b'],
    cyclic: false,
  });
});

test('a self-reference marks the backup cyclic without moving the table', (t) => {
  t.deepEqual(orderByForeignKeys(['staff', 'aaa'], [edge('staff', 'staff'), edge('aaa', 'staff')]), {
    order: ['staff', 'aaa'],
    cyclic: true,
  });
});

test('a cycle is broken deterministically and its dependants still follow it', (t) => {
  const edges = [edge('a', 'b'), edge('b', 'a'), edge('c', 'b'), edge('b', 'z')];
  const result = orderByForeignKeys(['c', 'b', 'a', 'z'], edges);
  t.deepEqual(result, { order: ['z', 'a', 'b', 'c'], cyclic: true });
  t.deepEqual(orderByForeignKeys(['a', 'z', 'c', 'b'], [...edges].reverse()), result);
});

test('any acyclic set of references: every parent before its children, same order for any input order', (t) => {
  const dag = fc
    .integer({ min: 1, max: 12 })
    .chain((size) =>
      fc.tuple(
        fc.constant(Array.from({ length: size }, (_, index) => `t${String(index).padStart(2, '0')}`)),
        fc.array(fc.tuple(fc.nat(size - 1), fc.nat(size - 1)), { maxLength: 30 }),
      ),
    )
    .map(([tables, pairs]) => ({
      tables,
      // Child index above parent index: no cycles.
      edges: pairs
        .filter(([a, b]) => a !== b)
        .map(([a, b]) => edge(tables[Math.max(a, b)]!, tables[Math.min(a, b)]!)),
    }));
  fc.assert(
    fc.property(dag, fc.infiniteStream(fc.nat()), ({ tables, edges }, noise) => {
      const shuffled = [...tables].sort(() => (noise.next().value % 3) - 1);
      const result = orderByForeignKeys(shuffled, edges);
      assert.equal(result.cyclic, false);
      assert.deepEqual([...result.order].sort(), [...tables].sort());
      for (const { child, parent } of edges)
        assert.ok(result.order.indexOf(parent) < result.order.indexOf(child));
      assert.deepEqual(orderByForeignKeys(tables, edges), result);
    }),
  );
  t.pass();
});
