/**
 * SECRET_KEY for a Ward on its embedded database (`npm start`, a developer's or a trial clinic's
 * machine): when none is set, one is generated once into `<storage>/secret.key` (mode 0600) and
 * used from then on, so two-factor sign-in works out of the box there. A deployment on its own
 * PostgreSQL server (DATABASE_URL) gets no such default: its key must live apart from its data,
 * which is the point of sealing.
 */
import { randomBytes } from 'node:crypto';
import { link, open, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { MIN_SECRET_KEY_LENGTH } from './backend-settings.ts';
import { WardError } from '../errors/ward-error.ts';

export const SECRET_KEY_FILE = 'secret.key';

export async function embeddedSecretKey(storageDir: string): Promise<string> {
  const file = path.join(storageDir, SECRET_KEY_FILE);
  const generated = randomBytes(32).toString('hex');
  // Written whole and flushed under a name of its own, then linked into place: a full disk or a
  // power cut leaves no empty or cut-short key behind, and of two starts at once the first wins.
  const draft = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  const handle = await open(draft, 'wx', 0o600);
  try {
    await handle.writeFile(`${generated}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await link(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(draft, { force: true });
  }
  const key = (await readFile(file, 'utf8')).trim();
  if (key.length < MIN_SECRET_KEY_LENGTH)
    throw new WardError(
      'invalid_setting',
      `${file} holds a key of ${key.length} characters; a SECRET_KEY needs at least ${MIN_SECRET_KEY_LENGTH}`,
      `set SECRET_KEY (\`openssl rand -hex 32\`), or delete ${file} if no two-factor sign-in was set up with it`,
    );
  return key;
}
