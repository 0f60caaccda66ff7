/**
 * The entry point of the backend's bundle (build/backend.mjs, see src/server/backend-bundle.ts), and
 * so of every backend process: `ward serve`'s, its spare, `ward backend`, a container's. It refuses
 * to start a bundle that is not the code on disk, then runs src/server/backend-main.ts from the
 * bundle. Run from its sources, it would check the bundle, not itself: only the build uses it.
 */
import { ROOT } from '../config.ts';
import { bundleStaleness, staleBundleError } from './backend-bundle.ts';
import { BACKEND_OUTPUT, reportFailure } from './failure.ts';

const stale = bundleStaleness(ROOT);
if (stale === null) await import('./backend-main.ts');
else {
  reportFailure(staleBundleError(stale), false, BACKEND_OUTPUT);
  process.exitCode = 1;
}
