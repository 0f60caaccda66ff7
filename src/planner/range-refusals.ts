/**
 * The text of an `out_of_range` refusal: each broken range with the module, the range and the
 * version, and a hint that says what mends each (refusals.ts renders every other refusal).
 */
import type { RangeBreak, RangeFix, Refusal } from './types.ts';

/** `migration_import 1.1.0 requires documents ^1.0.0, and documents would be 2.0.0`. */
export function describeBreak(broken: RangeBreak, tense: 'would be' | 'is'): string {
  const module = broken.moduleVersion === null ? broken.module : `${broken.module} ${broken.moduleVersion}`;
  return `${module} requires ${broken.dependency} ${broken.range}, and ${broken.dependency} ${tense} ${broken.version}`;
}

function describeFix(broken: RangeBreak, fix: RangeFix, kind: 'install' | 'upgrade'): string {
  switch (fix.kind) {
    case 'cascade':
      return `pass --cascade to upgrade ${fix.module} to ${fix.diskVersion}, its version on disk, which accepts ${broken.dependency} ${broken.version}`;
    case 'upgrade_dependency':
      return `upgrade ${fix.dependency} first (\`ward modules upgrade ${fix.dependency}\`: its version on disk, ${fix.diskVersion}, is in ${broken.range})`;
    case 'new_code':
      return kind === 'upgrade'
        ? `put a version of ${broken.module} that accepts ${broken.dependency} ${broken.version} on disk (then upgrade with --cascade), or of ${broken.dependency} in ${broken.range}`
        : `put a version of ${broken.dependency} in ${broken.range} on disk, or one of ${broken.module} that accepts ${broken.dependency} ${broken.version}`;
  }
}

/** What mends a range `ward modules doctor` finds broken. */
export function rangeHint(broken: RangeBreak, fix: RangeFix): string {
  switch (fix.kind) {
    case 'cascade':
      return `upgrade ${fix.module} to ${fix.diskVersion}, its version on disk, which accepts ${broken.dependency} ${broken.version} (\`ward modules upgrade ${fix.module}\`)`;
    case 'upgrade_dependency':
      return `upgrade ${fix.dependency} (\`ward modules upgrade ${fix.dependency}\`: its version on disk, ${fix.diskVersion}, is in ${broken.range})`;
    case 'new_code':
      return `put a version of ${broken.module} that accepts ${broken.dependency} ${broken.version} on disk, or of ${broken.dependency} in ${broken.range}, then upgrade it`;
  }
}

export function renderRangeRefusal(refusal: Extract<Refusal, { code: 'out_of_range' }>): {
  message: string;
  hint: string;
} {
  const verb = refusal.kind === 'install' ? 'installing' : 'upgrading';
  const fixes = [...new Set(refusal.breaks.map((broken) => describeFix(broken, broken.fix, refusal.kind)))];
  const force =
    refusal.kind === 'upgrade'
      ? '; or pass --force to upgrade anyway and leave them outside (`ward modules doctor` reports it until mended)'
      : '';
  return {
    message: `${verb} ${refusal.module} would leave modules outside a version range they require: ${refusal.breaks.map((broken) => describeBreak(broken, 'would be')).join('; ')}`,
    hint: `${fixes.join('; ')}${force}`,
  };
}
