/**
 * Code Ward builds at install into generated/ (git ignores it; scripts/build-validators.ts, run by
 * `npm install` as the `prepare` script): ajv's validators compiled ahead of time, so that no start
 * compiles them. Loaded on first use, and a checkout that was never installed says how to build it
 * rather than failing with a bare "Cannot find module".
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WardError } from './errors/ward-error.ts';

export const GENERATED_DIR = fileURLToPath(new URL('../generated/', import.meta.url));

export const generatedFile = (name: string): string => path.join(GENERATED_DIR, name);

const require = createRequire(import.meta.url);

/** The CommonJS module `name` of generated/, typed by the caller. */
export function loadGenerated<T>(name: string): T {
  const file = generatedFile(name);
  try {
    return require(file) as T;
  } catch (error) {
    // Only the file itself: a module it requires that is missing is another failure.
    const missing = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND';
    if (!missing || !(error as Error).message.includes(file)) throw error;
    throw new WardError(
      'not_built',
      `${file} is missing: Ward builds it when it is installed`,
      'run `npm install` in the Ward folder, or `node_modules/node/bin/node scripts/build-validators.ts`',
      { cause: error },
    );
  }
}

/** A loader that loads on its first call and returns the same module after. */
export function generatedOnce<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= loadGenerated<T>(name));
}
