/**
 * Names of Object.prototype's members: a key a lookup table in a plain object would find inherited
 * (a function, or the prototype itself) instead of missing. Tests of tables keyed by data use them.
 */
export const OBJECT_MEMBER_NAMES: readonly string[] = [
  'constructor',
  'toString',
  'valueOf',
  '__proto__',
  'hasOwnProperty',
];
