/**
 * Practitioners: the people appointments are booked with (`appointments_practitioner`), each
 * optionally linked to the staff user who signs in as them. A practitioner's name is unique once
 * folded (`foldName`), so "Dr. Cho" and "Dr Cho" are one person wherever a name arrives as text:
 * the migration of the free-text names, the importer, and `POST /practitioners`.
 */
import type { Knex } from 'knex';

export interface Practitioner {
  id: number;
  name: string;
  specialty: string | null;
  /** False once deactivated: kept for the appointments that name them, no longer bookable. */
  active: boolean;
  /** The staff user (base_user) who signs in as this practitioner, or null. */
  userId: number | null;
}

export interface PractitionerRow {
  id: number;
  name: string;
  folded_name: string;
  specialty: string | null;
  active: boolean;
  user_id: number | null;
}

/** What a create or a change of a practitioner sends; every field optional in a change. */
export interface PractitionerInput {
  name?: string;
  specialty?: string | null;
  active?: boolean;
  userId?: number | null;
}

export const PRACTITIONER_TABLE = 'appointments_practitioner';
export const PRACTITIONER_SELECT = ['id', 'name', 'folded_name', 'specialty', 'active', 'user_id'];
const SELECT = PRACTITIONER_SELECT;

export const PRACTITIONER_LIMITS = { name: 255, specialty: 255 } as const;

const PRACTITIONER_PROPERTIES = {
  name: { type: 'string', minLength: 1, maxLength: PRACTITIONER_LIMITS.name },
  specialty: { anyOf: [{ type: 'string', maxLength: PRACTITIONER_LIMITS.specialty }, { type: 'null' }] },
  active: { type: 'boolean' },
  userId: { anyOf: [{ type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 }, { type: 'null' }] },
};

export const CREATE_PRACTITIONER = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: PRACTITIONER_PROPERTIES,
};

export const UPDATE_PRACTITIONER = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: PRACTITIONER_PROPERTIES,
};

export const presentPractitioner = (row: PractitionerRow): Practitioner => ({
  id: row.id,
  name: row.name,
  specialty: row.specialty,
  active: row.active,
  userId: row.user_id,
});

/**
 * The columns a create or a change writes, from its input: the name trimmed with its folded key,
 * a blank specialty as none. `null` for a name that folds to nothing (the caller refuses it).
 */
export function practitionerColumns(input: PractitionerInput): Record<string, unknown> | null {
  const columns: Record<string, unknown> = {};
  if (input.name !== undefined) {
    const name = input.name.trim();
    const folded = foldName(name);
    if (folded === '') return null;
    columns.name = name;
    columns.folded_name = folded;
  }
  if (input.specialty !== undefined) {
    const specialty = input.specialty?.trim() ?? '';
    columns.specialty = specialty === '' ? null : specialty;
  }
  if (input.active !== undefined) columns.active = input.active;
  if (input.userId !== undefined) columns.user_id = input.userId;
  return columns;
}

/**
 * The key two spellings of one name share: compatibility-decomposed, accents dropped, lower case,
 * apostrophes dropped ("O'Brien" is "obrien"), every other run of punctuation or space one space.
 * "Dr. Cho", "Dr Cho" and "dr.  cho" all fold to "dr cho". Empty for a name of punctuation only.
 */
export function foldName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’ʼ`]/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/**
 * Of the spellings of one folded name, the one shown: the most used, then the longest (it keeps
 * the punctuation: "Dr. Cho" over "Dr Cho"), then the first in code-point order.
 */
export function preferredSpelling(uses: ReadonlyMap<string, number>): string {
  const ranked = [...uses].sort(
    ([a, aUses], [b, bUses]) => bUses - aUses || b.length - a.length || (a < b ? -1 : a > b ? 1 : 0),
  );
  return ranked[0]![0];
}

export async function listPractitioners(knex: Knex): Promise<Practitioner[]> {
  const rows = (await knex(PRACTITIONER_TABLE)
    .select(SELECT)
    .orderBy(['folded_name', 'id'])) as PractitionerRow[];
  return rows.map(presentPractitioner);
}

export async function findPractitioner(
  knex: Knex | Knex.Transaction,
  id: number,
): Promise<Practitioner | null> {
  const row = (await knex(PRACTITIONER_TABLE).select(SELECT).where({ id }).first()) as
    PractitionerRow | undefined;
  return row === undefined ? null : presentPractitioner(row);
}

/** The practitioner the staff user signs in as, or null. */
export async function practitionerOfUser(knex: Knex, userId: number): Promise<Practitioner | null> {
  const row = (await knex(PRACTITIONER_TABLE).select(SELECT).where({ user_id: userId }).first()) as
    PractitionerRow | undefined;
  return row === undefined ? null : presentPractitioner(row);
}

/**
 * The ids of the practitioners these names fold to, creating those that do not exist yet (named
 * with the name's preferred spelling among `names`): one key per folded name. Names that fold to
 * nothing are left out. Safe against a concurrent writer of the same name (on conflict).
 */
export async function upsertPractitioners(
  db: Knex | Knex.Transaction,
  names: readonly string[],
): Promise<Map<string, number>> {
  const spellings = new Map<string, Map<string, number>>();
  for (const raw of names) {
    const name = raw.trim();
    const folded = foldName(name);
    if (folded === '') continue;
    const uses = spellings.get(folded) ?? new Map<string, number>();
    uses.set(name, (uses.get(name) ?? 0) + 1);
    spellings.set(folded, uses);
  }
  const ids = new Map<string, number>();
  if (spellings.size === 0) return ids;
  // A name an administrator made an alias books with that practitioner, and creates no one.
  for (const [key, id] of await aliasesOf(db, [...spellings.keys()])) {
    ids.set(key, id);
    spellings.delete(key);
  }
  if (spellings.size === 0) return ids;
  const folded = [...spellings.keys()];
  await db.raw(
    `insert into ${PRACTITIONER_TABLE} (name, folded_name)
     select * from unnest(?::text[], ?::text[]) on conflict (folded_name) do nothing`,
    [folded.map((key) => preferredSpelling(spellings.get(key)!)), folded],
  );
  const rows = (await db(PRACTITIONER_TABLE)
    .whereIn('folded_name', folded)
    .select('id', 'folded_name')) as Array<{
    id: number;
    folded_name: string;
  }>;
  for (const row of rows) ids.set(row.folded_name, row.id);
  return ids;
}

/** A staff user a practitioner may be linked to, and the practitioner already linked, if any. */
export interface LinkableUser {
  id: number;
  username: string;
  practitionerId: number | null;
}

/**
 * Every staff user by username, for the practitioner administration's "signs in as" choice. Read
 * here rather than through the users API, which needs base.user.manage: whoever manages
 * practitioners must see whom they can link, nothing more (no roles, no state).
 */
export async function linkableUsers(knex: Knex): Promise<LinkableUser[]> {
  const rows = (await knex('base_user as u')
    .leftJoin({ p: PRACTITIONER_TABLE }, 'p.user_id', 'u.id')
    .select('u.id', 'u.username', 'p.id as practitioner_id')
    .orderBy('u.username')) as Array<{ id: number; username: string; practitioner_id: number | null }>;
  return rows.map((row) => ({ id: row.id, username: row.username, practitionerId: row.practitioner_id }));
}

/** How an import's practitioner names would land: on existing practitioners, or as new ones. */
export interface PractitionerPlan {
  /** Existing practitioners the names fold to, each with the names that reach it. */
  matched: Array<{ practitioner: Practitioner; names: string[]; appointments: number }>;
  /** Practitioners that would be created, named with their preferred spelling, and the names that make each. */
  created: Array<{ name: string; names: string[]; appointments: number }>;
}

/**
 * Groups names (each with its number of appointments) by folded name, against the existing
 * practitioners by folded name: what `upsertPractitioners` would do with them, written nowhere.
 * Names that fold to nothing book no practitioner and are left out. Both lists by folded name.
 */
export function planPractitioners(
  names: ReadonlyArray<{ name: string; appointments: number }>,
  existing: ReadonlyMap<string, Practitioner>,
): PractitionerPlan {
  const groups = new Map<string, Map<string, number>>();
  for (const { name, appointments } of names) {
    const shown = name.trim();
    const folded = foldName(shown);
    if (folded === '') continue;
    const uses = groups.get(folded) ?? new Map<string, number>();
    uses.set(shown, (uses.get(shown) ?? 0) + appointments);
    groups.set(folded, uses);
  }
  const plan: PractitionerPlan = { matched: [], created: [] };
  for (const folded of [...groups.keys()].sort()) {
    const uses = groups.get(folded)!;
    const spelled = [...uses.keys()].sort();
    const appointments = [...uses.values()].reduce((sum, count) => sum + count, 0);
    const practitioner = existing.get(folded);
    if (practitioner === undefined)
      plan.created.push({ name: preferredSpelling(uses), names: spelled, appointments });
    else plan.matched.push({ practitioner, names: spelled, appointments });
  }
  return plan;
}

/** The existing practitioners whose folded names are among these names', by folded name. */
export async function practitionersByFoldedName(
  db: Knex | Knex.Transaction,
  names: readonly string[],
): Promise<Map<string, Practitioner>> {
  const folded = [...new Set(names.map(foldName))].filter((key) => key !== '');
  const rows = (await db(PRACTITIONER_TABLE)
    .whereIn('folded_name', folded)
    .select(SELECT)) as PractitionerRow[];
  const found = new Map(rows.map((row) => [row.folded_name, presentPractitioner(row)]));
  const aliases = await aliasesOf(db, folded);
  if (aliases.size > 0) {
    const targets = (await db(PRACTITIONER_TABLE)
      .whereIn('id', [...new Set(aliases.values())])
      .select(SELECT)) as PractitionerRow[];
    const byId = new Map(targets.map((row) => [row.id, presentPractitioner(row)]));
    for (const [key, id] of aliases) found.set(key, byId.get(id)!);
  }
  return found;
}

export const ALIAS_TABLE = 'appointments_practitioner_alias';

/** The practitioner ids of the aliases among these folded names. */
async function aliasesOf(
  db: Knex | Knex.Transaction,
  folded: readonly string[],
): Promise<Map<string, number>> {
  const rows = (await db(ALIAS_TABLE)
    .whereIn('folded_name', folded)
    .select('folded_name', 'practitioner_id')) as Array<{ folded_name: string; practitioner_id: number }>;
  return new Map(rows.map((row) => [row.folded_name, row.practitioner_id]));
}
