/**
 * The storage folder (WARD_STORAGE_DIR) is checked, and created if need be, before anything uses
 * it, so that a folder Ward cannot use is one clear error naming the setting, not a failure deep in
 * the embedded server's start or an upload. It is created one level at a time: Node's recursive
 * mkdir never returns on a pseudo-filesystem such as /proc, which refuses every new entry.
 */
import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { WardError } from './errors/ward-error.ts';

export async function ensureStorageDir(dir: string): Promise<void> {
  try {
    await makeDirs(dir);
    await access(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new WardError(
      'storage_unusable',
      `cannot use the storage folder ${dir} (${code})`,
      'set WARD_STORAGE_DIR to a folder Ward may create and write, or unset it to use storage/ in the Ward directory',
      { cause: error },
    );
  }
}

async function makeDirs(dir: string): Promise<void> {
  const missing: string[] = [];
  for (let current = dir; ; current = path.dirname(current)) {
    const found = await stat(current).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (found !== null) {
      if (!found.isDirectory())
        throw Object.assign(new Error(`${current} is not a folder`), { code: 'ENOTDIR' });
      break;
    }
    missing.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const level of missing)
    await mkdir(level).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
}
