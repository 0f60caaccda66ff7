/** Directory reads for discovery, where a missing directory is an answer rather than a failure. */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { WardError } from '../errors/ward-error.ts';

/** null when the directory is missing; other failures (permissions) stop discovery with a clear error. */
export async function listDir(dir: string): Promise<Dirent[] | null> {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    const message = `cannot read ${dir} (${code ?? String(error)})`;
    throw new WardError('discovery_failed', message, 'check that the backend may read it', { cause: error });
  }
}

/** Symlinks count as directories: npm link and workspaces put packages in node_modules that way. */
export const isDirLike = (entry: Dirent): boolean => entry.isDirectory() || entry.isSymbolicLink();

/** Whether anything is at `path`. */
export const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );
