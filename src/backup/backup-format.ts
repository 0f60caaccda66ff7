/**
 * The backup file's name and the parts of its text that backup writes and restore reads: the
 * header (which tables, how many rows each) and the session settings around the data.
 */
import path from 'node:path';
import { assertModuleName } from '../planner/names.ts';

const FORMAT_LINE = '-- Ward module backup, format 1: data-only INSERT statements.';
const TABLE_LINE = /^-- table ("(?:[^"\\]|\\.)*") rows (\d+)$/;

export interface TableCount {
  table: string;
  rows: number;
}

export interface HeaderInfo {
  created: Date;
  database: string;
  schema: string;
  server: string;
  /** Parents before children, as the data follows. */
  tables: readonly TableCount[];
}

/**
 * Settings that make the server read the values exactly as the backup session wrote them, whatever
 * the restoring session's defaults (the same ones pg_dump writes). The server's own settings still
 * apply to anything the file does not set.
 */
const SESSION_SETTINGS = [
  "SET client_encoding = 'UTF8';",
  'SET standard_conforming_strings = on;',
  'SET statement_timeout = 0;',
  'SET lock_timeout = 0;',
  'SET idle_in_transaction_session_timeout = 0;',
  "SET DateStyle = 'ISO';",
  "SET IntervalStyle = 'postgres';",
  'SET xmloption = content;',
  'SET row_security = off;',
];

/**
 * Session-replication mode skips foreign-key triggers (and ordinary triggers, as pg_dump
 * --disable-triggers does). Chosen over deferring: tables that reference each other (or
 * themselves) have no insert order that satisfies non-deferrable keys, which are the default and
 * which SET CONSTRAINTS cannot defer. The rows come from one consistent snapshot, so the checks
 * would only repeat what already held. It needs a superuser (or GRANT SET ON PARAMETER), so it is
 * written only when a cycle exists. SET LOCAL ends with the transaction.
 */
const UNCHECKED_FOREIGN_KEYS = [
  '-- These tables reference each other or themselves: insert without foreign-key triggers.',
  'SET LOCAL session_replication_role = replica;',
];

/** Where uninstall backups are written and `ward modules restore` looks for them. */
export const backupDir = (storageDir: string): string => path.join(storageDir, 'backups');

/** `module_<name>_<YYYYMMDDTHHMMSSZ>.sql`: UTC, so names sort in time order. */
export function backupFileName(module: string, now: Date): string {
  if (Number.isNaN(now.getTime())) throw new Error('backupFileName needs a valid date');
  const stamp = now
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll('-', '')
    .replaceAll(':', '');
  return `module_${assertModuleName(module)}_${stamp}.sql`;
}

/** Matches the module's backups and no other module's, even when one name prefixes another. */
export function backupFilePattern(module: string): RegExp {
  return new RegExp(`^module_${assertModuleName(module)}_(\\d{8}T\\d{6}Z)\\.sql$`);
}

/** The module a backup belongs to, from its file name, or null when the file was renamed. */
export function moduleOfBackup(file: string): string | null {
  return /^module_([a-z][a-z0-9_]{0,62})_\d{8}T\d{6}Z\.sql$/.exec(path.basename(file))?.[1] ?? null;
}

/** Names go through JSON.stringify: a name may hold a newline, which would end the comment. */
export function renderHeader(info: HeaderInfo, cyclic: boolean): string {
  const lines = [
    FORMAT_LINE,
    `-- Created ${info.created.toISOString()} from schema ${JSON.stringify(info.schema)} of database ${JSON.stringify(info.database)} (PostgreSQL ${info.server}).`,
    '-- Restore after installing the module again (its tables must exist), in the same schema:',
    '--   psql "$DATABASE_URL" -v ON_ERROR_STOP=1 -f <this file>',
    '-- The data is one transaction: a restore that fails changes nothing.',
    '-- Tables, parents before children, and the rows each holds:',
    ...info.tables.map(({ table, rows }) => `-- table ${JSON.stringify(table)} rows ${rows}`),
    '',
    ...SESSION_SETTINGS,
    '',
    'BEGIN;',
    ...(cyclic ? UNCHECKED_FOREIGN_KEYS : []),
    '',
  ];
  return `${lines.join('\n')}\n`;
}

export const FOOTER = 'COMMIT;\n';

/** The tables and row counts from the comment lines before the first statement; null if not a backup. */
export function parseHeader(comments: readonly string[]): TableCount[] | null {
  if (comments[0] !== FORMAT_LINE) return null;
  const tables: TableCount[] = [];
  for (const line of comments) {
    const match = TABLE_LINE.exec(line);
    if (match !== null) tables.push({ table: JSON.parse(match[1]!) as string, rows: Number(match[2]) });
  }
  return tables;
}
