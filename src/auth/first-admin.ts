/**
 * First run: with the base module installed and no user at all, nobody could sign in to create
 * one over HTTP. Start-up then creates `admin` with a random password, which it writes to a file in
 * the storage folder readable by Ward's own OS user only, never to the console or the log (whatever
 * captures a container's output keeps it); the database keeps its scrypt hash alone. Ward chose
 * that password, so the admin must choose their own at first sign-in (users.ts,
 * mustChangePasswordSql); once they have, the file goes.
 */
import { open, rm, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { isWardError, WardError } from '../errors/ward-error.ts';
import { startDb, type StartDb } from '../db/lazy-knex.ts';
import { selectRows } from '../db/pg-client.ts';
import { sqlLiteral } from '../db/sql-literal.ts';
import { AUTH_MODULE, RUNNING } from './installed.ts';
import { hashPassword, randomPassword } from './password.ts';
import { baseState, createUser, mustChangePasswordSql } from './users.ts';

export const FIRST_ADMIN = 'admin';

export interface FirstAdmin {
  username: string;
  /** The file that holds its password. */
  passwordFile: string;
}

/** Where the first admin's password is written, in the storage folder. */
export const firstAdminPasswordFile = (storageDir: string): string =>
  path.join(storageDir, 'first-admin-password');

/** The first admin chose their own password: the one Ward wrote down is no use to anyone. */
export async function removeFirstAdminPassword(storageDir: string): Promise<void> {
  await rm(firstAdminPasswordFile(storageDir), { force: true });
}

/**
 * Creates the first admin when the base module is installed and no user exists, its password in
 * the file; returns it, or null when there was nothing to do. Two replicas starting together
 * create one admin: the loser of the insert race finds the name taken and writes nothing. The
 * file is created, never replaced: one already there (left by an earlier database or an
 * interrupted first start) stops the start, and no admin is created. `write` fills the opened file
 * (replaceable to test a failed write). Every start but the first asks with plain queries; knex is
 * loaded only to create the admin.
 */
export async function ensureFirstAdmin(
  given: Knex | StartDb,
  logger: Logger,
  storageDir: string,
  print: (text: string) => void = (text) => process.stderr.write(text),
  write: WriteText = (handle, text) => handle.writeFile(text),
): Promise<FirstAdmin | null> {
  const db = startDb(given);
  const [base] = await selectRows<{ state: string }>(
    db.sql,
    `select state from core_module where name = ${sqlLiteral(AUTH_MODULE)}`,
  );
  if (base === undefined || !RUNNING.has(base.state)) return null;
  if ((await selectRows(db.sql, 'select 1 from base_user limit 1')).length > 0) {
    await forgetChangedPassword(db, logger, storageDir);
    return null;
  }
  const knex = await db.knex();
  const password = randomPassword();
  const passwordHash = await hashPassword(password);
  const file = firstAdminPasswordFile(storageDir);
  let written = false;
  try {
    // The file is written before the admin is committed: if it cannot be, there is no admin
    // whose password nobody knows.
    await knex.transaction(async (trx) => {
      await createUser(trx, {
        username: FIRST_ADMIN,
        passwordHash,
        roles: ['admin'],
        mustChangePassword: true,
      });
      await writePasswordFile(file, password, write);
      written = true;
    });
  } catch (error) {
    if (written) await rm(file, { force: true });
    // Another replica created it first; that one wrote the password.
    if (isWardError(error) && error.code === 'user_exists') return null;
    throw error;
  }
  logger.info(
    { username: FIRST_ADMIN, passwordFile: file },
    'first run: created the admin user; its password is in the file',
  );
  print(
    [
      '',
      `Ward created the first user, "${FIRST_ADMIN}", with the admin role. Its password is in`,
      '',
      `    ${file}`,
      '',
      "readable only by Ward's own user. Sign in with it: POST /api/v1/auth/login",
      `{"username": "${FIRST_ADMIN}", "password": "<the password>"}. Ward then asks for a password of your own`,
      '(POST /api/v1/auth/password) before anything else, and deletes the file once you have chosen it.',
      `If it is lost: ward users set-password ${FIRST_ADMIN} --password-stdin`,
      '',
      '',
    ].join('\n'),
  );
  return { username: FIRST_ADMIN, passwordFile: file };
}

const firstAdminFileExists = (file: string, cause?: unknown): WardError =>
  new WardError(
    'first_admin_file_exists',
    `${file} already exists, yet this database has no user: it holds the first admin password of an earlier database, or was left by a first start that was interrupted`,
    'if that database is gone for good or the first start never finished, delete the file and start again; Ward never overwrites it',
    { cause },
  );

/**
 * For the preflight: the refusal `ensureFirstAdmin` would meet at the next start, when base is
 * (or is about to be) installed, no user exists, and the password file is already there.
 */
export async function leftoverFirstAdminFile(knex: Knex, storageDir: string): Promise<WardError | null> {
  const base = await baseState(knex);
  if (base === undefined || !(RUNNING.has(base) || base === 'to_install')) return null;
  if ((await knex.schema.hasTable('base_user')) && (await knex('base_user').first('id')) !== undefined)
    return null;
  const file = firstAdminPasswordFile(storageDir);
  const found = await stat(file).catch(() => null);
  return found === null ? null : firstAdminFileExists(file);
}

type WriteText = (handle: FileHandle, text: string) => Promise<unknown>;

/**
 * O_EXCL: never over a file already there, which may hold the only copy of a password. Written
 * and synced before the admin row commits; a file Ward created but could not fill is deleted, or
 * every later start would stop at it.
 */
async function writePasswordFile(file: string, password: string, write: WriteText): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw firstAdminFileExists(file, error);
  }
  try {
    await write(handle, `${password}\n`);
    await handle.sync();
    await handle.close();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(file, { force: true });
    throw error;
  }
}

/**
 * The admin's password was changed where the backend could not delete the file (`ward users
 * set-password`): delete it at the next start.
 */
async function forgetChangedPassword(db: StartDb, logger: Logger, storageDir: string): Promise<void> {
  const file = firstAdminPasswordFile(storageDir);
  const exists = await stat(file).then(
    () => true,
    () => false,
  );
  if (!exists) return;
  // Plain SQL too: the file stays until the admin chooses a password, over many starts.
  const [admin] = await selectRows<{ must_change: boolean }>(
    db.sql,
    `select ${mustChangePasswordSql('u')} as must_change from base_user u where u.username = ${sqlLiteral(FIRST_ADMIN)}`,
  );
  if (admin === undefined || admin.must_change) return;
  await removeFirstAdminPassword(storageDir);
  logger.info(
    { passwordFile: file },
    'deleted the first admin password file: the admin has chosen a password',
  );
}
