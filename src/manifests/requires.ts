/**
 * A manifest's `requires`: the version range of each dependency the module works with. A range
 * must be one npm's semver reads, and its module must be in `depends` too: `depends` says what is
 * installed first, `requires` only narrows which versions of it will do.
 */
import validRange from 'semver/ranges/valid.js';
import type { Manifest } from '../../generated/manifest.types.ts';

const escapePointer = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** What is wrong with `requires`, each at its JSON path. Pure. */
export function requiresProblems(manifest: Manifest): Array<{ path: string; message: string }> {
  const depends = new Set(manifest.depends ?? []);
  return Object.entries(manifest.requires ?? {}).flatMap(([module, range]) => {
    const path = `/requires/${escapePointer(module)}`;
    if (!depends.has(module))
      return [
        {
          path,
          message: `requires a version of ${module}, which is not in "depends"; add "${module}" to "depends" or remove it from "requires"`,
        },
      ];
    if (validRange(range ?? '') === null)
      return [
        {
          path,
          message: `${JSON.stringify(range)} is not a version range; write one as npm does, such as "^1.2.0", ">=1.0.0 <3.0.0" or "1.x"`,
        },
      ];
    return [];
  });
}
