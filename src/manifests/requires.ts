/**
 * A manifest's `requires`: the version range of each dependency the module works with. A range
 * must be one npm's semver reads, and its module must be in `depends` too: `depends` says what is
 * installed first, `requires` only narrows which versions of it will do.
 */
import { createRequire } from 'node:module';
import type semverValidRange from 'semver/ranges/valid.js';
import type { Manifest } from '../../generated/manifest.types.ts';

type ValidRange = typeof semverValidRange;
const require = createRequire(import.meta.url);
/**
 * semver's range reader, loaded at the first range to read: few manifests have `requires`, and
 * loading its score of files costs `ward modules list`, which reads every manifest, a tenth of its
 * time (bench/list.ts).
 */
let validRange: ValidRange | undefined;

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
    validRange ??= require('semver/ranges/valid.js') as ValidRange;
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
