/**
 * The changed fields of a write: a field named like an Object member is a field like any other.
 */
import test from 'ava';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { changedFields } from '../../src/audit/changes.ts';
import { OBJECT_MEMBER_NAMES } from '../helpers/object-members.ts';

test('a field named like an Object member that one side lacks reads as null there', (t) => {
  for (const name of OBJECT_MEMBER_NAMES) {
    const record = JSON.parse(`{${JSON.stringify(name)}: 1}`) as object;
    const created = changedFields(null, record);
    t.deepEqual(Object.entries(created), [[name, [null, 1]]]);
    t.is(Object.getPrototypeOf(created), Object.prototype);
    t.deepEqual(Object.entries(changedFields(record, {})), [[name, [1, null]]]);
    t.deepEqual(changedFields(record, record), {});
  }
});

test('property: a field is listed exactly when its JSON differs, with both values', (t) => {
  const key = fc.oneof(fc.constantFrom(...OBJECT_MEMBER_NAMES, 'createdAt'), fc.string({ maxLength: 6 }));
  const value = fc.oneof(fc.constant(null), fc.integer(), fc.string({ maxLength: 4 }));
  const record = fc.dictionary(key, value, { maxKeys: 5 });
  fc.assert(
    fc.property(record, record, (before, after) => {
      const changes = changedFields(before, after);
      const read = (r: Record<string, unknown>, k: string) => (Object.hasOwn(r, k) ? (r[k] ?? null) : null);
      const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
        (field) =>
          field !== 'createdAt' && field !== 'updatedAt' && read(before, field) !== read(after, field),
      );
      return (
        isDeepStrictEqual(Object.keys(changes).sort(), fields.sort()) &&
        fields.every((field) =>
          isDeepStrictEqual(Object.getOwnPropertyDescriptor(changes, field)?.value, [
            read(before, field),
            read(after, field),
          ]),
        )
      );
    }),
  );
  t.pass();
});
