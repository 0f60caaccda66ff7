/**
 * Builds the backend's bundle into build/ (src/server/build-bundle.ts), from which every backend
 * process starts. `npm install` and `npm ci` run it (the `prepare` script), as they build the
 * validators and the web shell; run it again after editing Ward's code (`npm run build:backend`),
 * or let `npm start` do it: a backend refuses a bundle older than the sources.
 */
import { ROOT } from '../src/config.ts';
import { buildBackendBundle } from '../src/server/build-bundle.ts';

const started = performance.now();
const { files } = await buildBackendBundle(ROOT);
console.log(
  `built the backend into build/ (${files.length} inputs recorded) in ${(
    (performance.now() - started) /
    1000
  ).toFixed(1)} s`,
);
