/**
 * Writes oclif.manifest.json: the command metadata oclif reads at start-up so that running one
 * command imports only that command's file. Same result as `oclif manifest`, without the oclif
 * CLI's dependency tree. test/cli/manifest.test.ts fails when the committed file is stale.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Plugin, settings } from '@oclif/core';
import { ROOT } from '../src/config.ts';

settings.enableAutoTranspile = false;

export async function buildManifest(): Promise<string> {
  const plugin = new Plugin({ root: ROOT, isRoot: true, ignoreManifest: true, errorOnManifestCreate: true });
  await plugin.load();
  // Commands are found by parallel file reads, in no fixed order; sort so the file is stable.
  const commands = Object.fromEntries(
    Object.entries(plugin.manifest.commands).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  return `${JSON.stringify({ ...plugin.manifest, commands }, null, 2)}\n`;
}

if (import.meta.main) {
  const file = path.join(ROOT, 'oclif.manifest.json');
  await writeFile(file, await buildManifest());
  console.log(`wrote ${path.relative(process.cwd(), file)}`);
}
