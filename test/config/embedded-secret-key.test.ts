import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { embeddedSecretKey, SECRET_KEY_FILE } from '../../src/config/embedded-secret-key.ts';
import { MIN_SECRET_KEY_LENGTH } from '../../src/config/backend-settings.ts';

test('an embedded Ward generates its SECRET_KEY once, readable by its owner only, and keeps it', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ward-key-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const [first, second] = await Promise.all([embeddedSecretKey(dir), embeddedSecretKey(dir)]);
  t.is(first, second, 'two starts at once agree on one key');
  t.true(first.length >= MIN_SECRET_KEY_LENGTH);
  t.is(await embeddedSecretKey(dir), first, 'the next start reads the same key');
  t.is((await readFile(path.join(dir, SECRET_KEY_FILE), 'utf8')).trim(), first);
  t.is((await stat(path.join(dir, SECRET_KEY_FILE))).mode & 0o777, 0o600);
});

test('a key file cut short is refused, naming the file and the way out', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ward-key-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(path.join(dir, SECRET_KEY_FILE), 'short\n', { mode: 0o600 });
  const error = await t.throwsAsync(embeddedSecretKey(dir));
  t.like(error, { code: 'invalid_setting' });
  t.regex(error?.message ?? '', /secret\.key holds a key of 5 characters/);
  t.deepEqual(await readdir(dir), [SECRET_KEY_FILE], 'no draft is left behind');
});
