/**
 * SECRET_KEY for a Ward on its embedded database (`npm start`, a developer's or a trial clinic's
 * machine): when none is set, one is generated once into `<storage>/secret.key` (mode 0600) and
 * used from then on, so two-factor sign-in works out of the box there. A deployment on its own
 * PostgreSQL server (DATABASE_URL) gets no such default: its key must live apart from its data,
 * which is the point of sealing.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const SECRET_KEY_FILE = 'secret.key';

export async function embeddedSecretKey(storageDir: string): Promise<string> {
  const file = path.join(storageDir, SECRET_KEY_FILE);
  const generated = randomBytes(32).toString('hex');
  try {
    // wx: two processes starting at once keep whichever key was written first.
    await writeFile(file, `${generated}\n`, { flag: 'wx', mode: 0o600 });
    return generated;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // The other process may still be writing it: a key is read whole or not at all.
  for (let tries = 0; ; tries++) {
    const key = (await readFile(file, 'utf8')).trim();
    if (key.length >= generated.length || tries >= 50) return key;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
