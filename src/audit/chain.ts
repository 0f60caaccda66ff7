/**
 * The audit trail's hash chain, pure: each row's `hash` is sha256(previous row's hash || the row's
 * canonical text), the first row's previous hash being empty. Editing, deleting or reordering a
 * row breaks the link of the row after it (and its own), which `ward audit verify` finds; a
 * rewrite of the whole chain is caught against a checkpoint (an id and hash kept elsewhere).
 *
 * The canonical text is RFC 8785 (JSON Canonicalization Scheme) of the row's fields, so it does
 * not depend on key order or on how PostgreSQL's jsonb hands `detail` back. The id is left out:
 * chain order is the id order, and a row's place is already fixed by the hash it links to, so
 * identity gaps (a rolled-back insert) need no special case.
 */
import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// The package is CommonJS (`module.exports = serialize`) while its types declare an ES default
// export, which TypeScript's node16 resolution then nests one level too deep.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

export type AuditOutcome = 'ok' | 'refused' | 'failed';

/** One row of `core_audit_event` as it is hashed: every column but `id` and `hash`. */
export interface AuditFields {
  at: Date;
  actor: string;
  userId: number | null;
  action: string;
  module: string | null;
  kind: string | null;
  recordId: string | null;
  patientId: string | null;
  /** The patients a list or batch showed or wrote, or null (one patient is `patientId`). */
  patientIds: string[] | null;
  client: string | null;
  outcome: AuditOutcome;
  /** JSON as PostgreSQL's jsonb gives it back (see `jsonDetail`), or null. */
  detail: unknown;
}

/** The hash the first row links to. */
export const GENESIS: Buffer = Buffer.alloc(0);

/**
 * Version of the canonical form, hashed with every row so one form can never collide with another.
 * Form 1 is a row without `patientIds`; form 2 adds them at the end. Rows written before the column
 * existed keep form 1 and verify as they did; setting or clearing a row's `patientIds` changes its
 * form and so breaks its hash.
 */
const FORM = 1;
const FORM_WITH_PATIENTS = 2;

/**
 * The canonical text around the row's time: `head + at.toISOString() + tail` is `canonicalText`.
 * The writer hands these to the database, which reads the clock and the chain's head once it holds
 * the chain's turn and hashes the rows there; the time's ISO text needs no escaping, so the join is
 * the canonical text the verifier computes here.
 */
export function canonicalParts(fields: Omit<AuditFields, 'at'>): { head: string; tail: string } {
  // The row's shape is fixed, so the canonical text is written here field by field: a string, a
  // number or null serialises in RFC 8785 exactly as JSON.stringify writes it, and only `detail`
  // (any JSON) needs the library's key sorting. An audited read writes this for every request;
  // the library's generic walk cost several times more (the tests hold both to the same text).
  const form = fields.patientIds === null ? FORM : FORM_WITH_PATIENTS;
  const head = `[${form},"`;
  let tail =
    `",${json(fields.actor)},${json(fields.userId)},${json(fields.action)},${json(fields.module)},` +
    `${json(fields.kind)},${json(fields.recordId)},${json(fields.patientId)},${json(fields.client)},` +
    `${json(fields.outcome)},${fields.detail === null || fields.detail === undefined ? 'null' : canonicalize(fields.detail)!}`;
  if (fields.patientIds !== null) tail += `,${JSON.stringify(fields.patientIds)}`;
  return { head, tail: `${tail}]` };
}

const json = (value: string | number | null): string => (value === null ? 'null' : JSON.stringify(value));

/** The text a row's hash covers. */
export function canonicalText(fields: AuditFields): string {
  const { head, tail } = canonicalParts(fields);
  return head + fields.at.toISOString() + tail;
}

/** sha256(prev || canonical text of `fields`). */
export function chainHash(prev: Uint8Array, fields: AuditFields): Buffer {
  return createHash('sha256').update(prev).update(canonicalText(fields), 'utf8').digest();
}

/**
 * `detail` as it will read back from jsonb: plain JSON (dates as their ISO text, undefined members
 * gone). The writer hashes this form, so what verify reads back hashes the same.
 */
export function jsonDetail(detail: unknown): unknown {
  if (detail === undefined || detail === null) return null;
  // jsonb refuses NUL (\u0000) and lone surrogates in a string or key: one typed into a URL must
  // not make a row, and every row grouped with it, fail. Each reads back as U+FFFD. JSON.stringify
  // writes a lone surrogate, and only a lone one, as a \udXXX escape. The lookbehind leaves an
  // escaped backslash followed by such text alone.
  const text = JSON.stringify(detail).replace(
    /(?<!\\)((?:\\\\)*)\\u(?:0000|d[89a-f][0-9a-f]{2})/g,
    '$1\\ufffd',
  );
  return JSON.parse(text) as unknown;
}

/**
 * `value` without NUL characters, which PostgreSQL's text refuses, nor lone surrogates, which
 * UTF-8 cannot carry and jsonb refuses (each as U+FFFD instead).
 */
export const storableText = (value: string): string => value.toWellFormed().replaceAll('\0', '\uFFFD');

/** The user id in an actor `user:<id>:…`, or null for any other actor. */
export function actorUserId(actor: string): number | null {
  const match = /^user:(\d+):/.exec(actor);
  return match === null ? null : Number(match[1]);
}

/** A stored row as verify reads it. */
export interface StoredRow extends AuditFields {
  id: string;
  hash: Buffer;
}

/** Whether `row` links to `prev` and its hash covers its own fields. */
export function linksTo(prev: Uint8Array, row: StoredRow): boolean {
  return chainHash(prev, row).equals(row.hash);
}

/** What a checkpoint holds: the latest row's id and hash (hex), and when it was taken. */
export interface Checkpoint {
  id: string;
  hash: string;
  at: string;
}
