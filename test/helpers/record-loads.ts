/**
 * Preloaded into a `ward` run (NODE_OPTIONS=--import) to write the URL of every module it loaded
 * to the file named by RECORD_LOADS_TO when it exits, so tests can tell which path a command took.
 * With RECORD_LOADS_AT=listening, a backend writes it as its HTTP server starts listening instead:
 * what it loaded before it could answer.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
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
  const write = () => writeFileSync(file, loaded.join('\n'));
  if (process.env.RECORD_LOADS_AT === 'listening') {
    const emit = http.Server.prototype.emit;
    let written = false;
    http.Server.prototype.emit = function (this: http.Server, event: string, ...args: unknown[]) {
      if (event === 'listening' && !written) {
        written = true;
        write();
      }
      return Reflect.apply(emit, this, [event, ...args]) as boolean;
    } as typeof emit;
  } else process.on('exit', write);
}
