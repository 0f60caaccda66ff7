/**
 * Does a version satisfy a layer's `sdk` range? The forms npm uses for such ranges: `^1.2.0`,
 * `~1.2.0`, `1.2.0`, `1.x`, `1`, `>=1.2.0 <2.0.0` (comparators joined by spaces), `a || b`, `*`.
 * Pure; null when the range cannot be read, so the shell can say that rather than guess.
 */
const VERSION = /^v?(\d+)(?:\.(\d+|x|\*))?(?:\.(\d+|x|\*))?(?:-[0-9A-Za-z.-]+)?$/;

function parse(text) {
  const found = VERSION.exec(text);
  if (found === null) return null;
  const part = (value) => (value === undefined || value === 'x' || value === '*' ? null : Number(value));
  return [Number(found[1]), part(found[2]), part(found[3])];
}

const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
const floor = (parts) => parts.map((part) => part ?? 0);

/** One comparator as a predicate over [major, minor, patch], or null. */
function comparator(text) {
  const [, operator, rest] = /^(\^|~|>=|<=|>|<|=)?(.*)$/.exec(text);
  const parts = parse(rest);
  if (parts === null) return null;
  const low = floor(parts);
  const [major, minor] = parts;
  switch (operator) {
    case '>=':
      return (v) => compare(v, low) >= 0;
    case '>':
      return (v) => compare(v, low) > 0;
    case '<=':
      return (v) => compare(v, low) <= 0;
    case '<':
      return (v) => compare(v, low) < 0;
    case '^': {
      // The leftmost non-zero part may not change: ^1.2.3 < 2.0.0, ^0.2.3 < 0.3.0.
      const high = major > 0 || minor === null ? [major + 1, 0, 0] : [0, minor + 1, 0];
      return (v) => compare(v, low) >= 0 && compare(v, high) < 0;
    }
    case '~': {
      const high = minor === null ? [major + 1, 0, 0] : [major, minor + 1, 0];
      return (v) => compare(v, low) >= 0 && compare(v, high) < 0;
    }
    default:
      // `1`, `1.x`, `1.2.x`: any version with the parts given; `1.2.3`: exactly it.
      return (v) => parts.every((part, index) => part === null || v[index] === part);
  }
}

export function satisfies(version, range) {
  const v = parse(version);
  if (v === null || typeof range !== 'string') return null;
  const alternatives = range.split('||').map((alternative) => alternative.trim());
  let result = false;
  for (const alternative of alternatives) {
    if (alternative === '' || alternative === '*') {
      result = true;
      continue;
    }
    const predicates = alternative.split(/\s+/).map(comparator);
    if (predicates.includes(null)) return null;
    if (predicates.every((predicate) => predicate(floor(v)))) result = true;
  }
  return result;
}
