/**
 * Starts a backend in this process from the bundle (src/server/backend-bundle.ts): what `ward
 * backend` does, and so a container. The bundle's own entry refuses one that is stale; here, one
 * that was never built is refused with the same error rather than Node's "Cannot find module".
 * Imported before anything else of a `ward backend` run, so it loads as little as it can.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';
import { BUNDLE_ENTRY, staleBundleError } from './backend-bundle.ts';

/** The Ward folder, two levels above this file (src/config.ts's ROOT, without loading the settings code). */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export async function runBundledBackend(root = ROOT): Promise<void> {
  const entry = path.join(root, BUNDLE_ENTRY);
  if (existsSync(entry)) {
    await import(pathToFileURL(entry).href);
    return;
  }
  const { BACKEND_OUTPUT, reportFailure } = await import('./failure.ts');
  reportFailure(staleBundleError('the backend has not been built'), false, BACKEND_OUTPUT);
  process.exitCode = 1;
}
