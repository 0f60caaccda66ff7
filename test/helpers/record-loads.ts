/**
 * Preloaded into a `ward` run (NODE_OPTIONS=--import) to write the URL of every module it loaded
 * to the file named by RECORD_LOADS_TO when it exits, so tests can tell which path a command took.
 */
import { writeFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.RECORD_LOADS_TO;
if (file !== undefined) {
  const loaded: string[] = [];
  registerHooks({
    load(url, context, nextLoad) {
      loaded.push(url);
      return nextLoad(url, context);
    },
  });
  process.on('exit', () => writeFileSync(file, loaded.join('\n')));
}
