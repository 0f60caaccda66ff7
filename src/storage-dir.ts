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
    throw unusable(dir, error);
  }
}

/**
 * For the preflight: the refusal `ensureStorageDir` would give, creating nothing. The folder, or
 * the nearest folder above it that exists (where the start would create it), must be writable.
 */
export async function checkStorageDir(dir: string): Promise<WardError | null> {
  try {
    const { existing } = await missingLevels(dir);
    await access(existing, constants.W_OK | constants.X_OK);
    return null;
  } catch (error) {
    return unusable(dir, error);
  }
}

const unusable = (dir: string, error: unknown): WardError =>
  new WardError(
    'storage_unusable',
    `cannot use the storage folder ${dir} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    'set WARD_STORAGE_DIR to a folder Ward may create and write, or unset it to use storage/ in the Ward directory',
    { cause: error },
  );

async function makeDirs(dir: string): Promise<void> {
  const { missing } = await missingLevels(dir);
  for (const level of missing)
    await mkdir(level).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
}

/** The folders to create, outermost first, and the nearest one that exists. */
async function missingLevels(dir: string): Promise<{ missing: string[]; existing: string }> {
  const missing: string[] = [];
  let current = dir;
  for (; ; current = path.dirname(current)) {
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
  return { missing, existing: current };
}
