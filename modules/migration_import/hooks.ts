/**
 * Upgrade: sources stored by a version before 1.1.0 were readable by every local user (0644, in
 * folders of 0755). Narrow them to Ward's user alone, as new sources are stored. Safe to repeat.
 */
import { chmod, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { HookContext } from '../../src/sdk/index.ts';
import { privateSourcesDir } from './lib/jobs/source-file.ts';

export async function post_upgrade({ storageDir, logger }: HookContext): Promise<void> {
  const dir = await privateSourcesDir(storageDir);
  const files = await readdir(dir);
  for (const file of files) await chmod(path.join(dir, file), 0o600);
  logger.info({ sources: files.length }, 'migration_import: stored sources narrowed to mode 0600');
}
