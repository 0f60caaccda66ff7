/**
 * The entry point of the lean `ward modules list`'s bundle (build/modules-list.mjs, built with the
 * backend's: src/server/build-bundle.ts). bin/ward runs it for `ward modules list [--json]`: the
 * lean path (lean-list.ts) then loads four bundled files rather than resolving, reading and
 * compiling some seventy one by one (35 of Ward's sources, the rest the packages they import),
 * which took a fifth of the command's time. A bundle that is not the code on disk, or a command
 * line the lean path does not take, runs bin/ward.ts from the sources instead, as without a
 * bundle; a list the lean path hands back goes to oclif, from the sources too (oclif is never
 * bundled).
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../config.ts';
import { bundleStaleness } from '../server/backend-bundle.ts';
import { leanList } from './lean-list.ts';
import { leanListRequest } from './lean-route.ts';
import type { runOclif } from './run-oclif.ts';

/** A file of the sources, imported at run time: the bundle must not take it in. */
const fromSources = (...segments: string[]) => import(pathToFileURL(path.join(ROOT, ...segments)).href);

/** Whether this bundle is the code on disk; a record it cannot read counts as not. */
function fresh(): boolean {
  try {
    return bundleStaleness(ROOT) === null;
  } catch {
    return false;
  }
}

const lean = leanListRequest(process.argv.slice(2), process.env);
if (lean === null || !fresh()) await fromSources('bin', 'ward.ts');
else if (!(await leanList(lean))) {
  const oclif = (await fromSources('src', 'cli', 'run-oclif.ts')) as { runOclif: typeof runOclif };
  await oclif.runOclif();
}
