import { leanListRequest } from '../src/cli/lean-route.ts';

const argv = process.argv.slice(2);
// `ward backend` reaches this file only when the backend's bundle was never built (bin/ward runs the
// bundle itself otherwise): say how to build it, without loading oclif first.
if (argv.length === 1 && argv[0] === 'backend') {
  await (await import('../src/server/run-bundle.ts')).runBundledBackend();
} else {
  // `ward modules list` is a quick read that scripts and shells call often, and loading oclif (and
  // knex behind it) would take longer than the read itself: exactly those command lines run without
  // either, printing the same bytes (src/cli/lean-list.ts). Everything else is oclif's.
  const lean = leanListRequest(argv, process.env);
  const done = lean !== null && (await (await import('../src/cli/lean-list.ts')).leanList(lean));

  if (!done) await (await import('../src/cli/run-oclif.ts')).runOclif();
}
