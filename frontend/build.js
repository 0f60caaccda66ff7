/**
 * Builds the web shell into frontend/dist. `npm install` and `npm ci` run it (the `prepare`
 * script), so a checkout serves its frontend with no extra step. Vite is a devDependency: an
 * install without them (`--omit=dev`) skips the build and says so, rather than failing.
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const started = performance.now();
let vite;
try {
  vite = await import('vite');
} catch {
  console.log(
    'ward: Vite is not installed (an install without devDependencies): the web frontend was not built',
  );
  process.exit(0);
}
await vite.build({ configFile: fileURLToPath(new URL('vite.config.js', import.meta.url)), logLevel: 'warn' });
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(`ward: web frontend built in ${seconds} s (frontend/dist)`);
