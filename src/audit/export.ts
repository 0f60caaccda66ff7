/**
 * An audit row as readers get it: the JSON of the API, the CLI's --json and each NDJSON export
 * line, and the same event as a FHIR R4 AuditEvent resource for a clinic's SIEM or a regulator.
 * Pure functions over plain data: the I/O is src/audit/read.ts's.
 */
import type { AuditRow } from './query.ts';

export type Outcome = 'ok' | 'refused' | 'failed';

export interface AuditEventJson {
  /** The chain position, as text: a bigint outgrows JSON's safe integers. */
  id: string;
  at: string;
  actor: string;
  userId: number | null;
  /** The user's name now, when the actor is a user whose row still exists. */
  username: string | null;
  action: string;
  module: string | null;
  kind: string | null;
  recordId: string | null;
  patientId: string | null;
  /** The patients a list showed or a batch wrote, or null. */
  patientIds: string[] | null;
  client: string | null;
  outcome: string;
  detail: unknown;
  /** sha256 chaining this row to the one before (hex), as `ward audit verify` checks it. */
  hash: string;
}

export function presentEvent(row: AuditRow, usernames: ReadonlyMap<number, string>): AuditEventJson {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    userId: row.user_id,
    username: row.user_id === null ? null : (usernames.get(row.user_id) ?? null),
    action: row.action,
    module: row.module,
    kind: row.kind,
    recordId: row.record_id,
    patientId: row.patient_id,
    patientIds: row.patient_ids,
    client: row.client,
    outcome: row.outcome,
    detail: row.detail ?? null,
    hash: row.hash.toString('hex'),
  };
}

/** One NDJSON line (with its newline): the event's JSON, which holds no newline of its own. */
export const ndjsonLine = (value: unknown): string => `${JSON.stringify(value)}\n`;

const DCM = 'http://dicom.nema.org/resources/ontology/DCM';
const EVENT_TYPE = 'http://terminology.hl7.org/CodeSystem/audit-event-type';
const ENTITY_TYPE = 'http://terminology.hl7.org/CodeSystem/audit-entity-type';
const OBJECT_ROLE = 'http://terminology.hl7.org/CodeSystem/object-role';
const SOURCE_TYPE = 'http://terminology.hl7.org/CodeSystem/security-source-type';
const NETWORK_TYPE_IP = '2';
/** Ward's own code systems: its actions and actors are not any standard's. */
export const WARD_ACTION_SYSTEM = 'urn:ward:audit:action';
export const WARD_ACTOR_SYSTEM = 'urn:ward:audit:actor';
export const WARD_RECORD_SYSTEM = 'urn:ward:record';

interface Coding {
  system: string;
  code: string;
  display: string;
}

export interface FhirAuditEvent {
  resourceType: 'AuditEvent';
  id: string;
  type: Coding;
  subtype: Array<Coding | { system: string; code: string }>;
  action: 'C' | 'R' | 'U' | 'D' | 'E';
  recorded: string;
  outcome: '0' | '4' | '8';
  outcomeDesc?: string;
  agent: Array<{
    type?: { text: string };
    who: { identifier: { system: string; value: string }; display?: string };
    altId?: string;
    requestor: boolean;
    network?: { address: string; type: string };
  }>;
  source: { site?: string; observer: { display: string }; type: Coding[] };
  entity?: Array<{
    what: { reference: string } | { identifier: { system: string; value: string } };
    type: Coding;
    role?: Coding;
    detail?: Array<{ type: string; valueString: string }>;
  }>;
}

/** The DICOM audit event type (the one FHIR R4 uses) closest to each family of Ward's actions. */
function eventType(action: string, hasPatient: boolean): Coding {
  const [family, verb] = action.split('.');
  if (family === 'auth') return { system: DCM, code: '110114', display: 'User Authentication' };
  if (family === 'import') return { system: DCM, code: '110107', display: 'Import' };
  if (action === 'audit.read') return { system: DCM, code: '110112', display: 'Query' };
  if (action === 'audit.export' || action === 'audit.export_end')
    return { system: DCM, code: '110106', display: 'Export' };
  if (family === 'record') {
    if (verb === 'list') return { system: DCM, code: '110112', display: 'Query' };
    if (verb === 'download') return { system: DCM, code: '110106', display: 'Export' };
    if (hasPatient) return { system: DCM, code: '110110', display: 'Patient Record' };
    return { system: EVENT_TYPE, code: 'rest', display: 'RESTful Operation' };
  }
  return { system: DCM, code: '110100', display: 'Application Activity' };
}

/*
 * Maps, not object literals: an action or actor read from the trail is data, and a name like
 * "constructor" would find an Object.prototype member in a plain object.
 */
const AUTH_SUBTYPE: ReadonlyMap<string, Coding> = new Map([
  ['auth.sign_in', { system: DCM, code: '110122', display: 'Login' }],
  ['auth.sign_in_failed', { system: DCM, code: '110122', display: 'Login' }],
  ['auth.sign_out', { system: DCM, code: '110123', display: 'Logout' }],
]);

/** FHIR's action code: create, read (and view/print), update, delete, execute (a query, a function). */
function actionCode(action: string): FhirAuditEvent['action'] {
  const verb = action.split('.').at(-1) ?? '';
  if (verb === 'create') return 'C';
  if (verb === 'read' || verb === 'download') return 'R';
  if (verb === 'update') return 'U';
  if (verb === 'delete' || verb === 'purge') return 'D';
  return 'E';
}

/** FHIR's outcome: 0 success, 4 minor failure (a refusal: nothing happened), 8 serious failure. */
const OUTCOME: ReadonlyMap<string, FhirAuditEvent['outcome']> = new Map([
  ['ok', '0'],
  ['refused', '4'],
  ['failed', '8'],
]);

const ACTOR_KIND: ReadonlyMap<string, string> = new Map([
  ['user', 'user'],
  ['cli', 'operator command line'],
  ['job', 'background job'],
  ['system', 'Ward itself'],
  ['anonymous', 'unauthenticated client'],
]);

/** A refusal's or failure's code from the detail, when the writer recorded one. */
function outcomeCode(detail: unknown): string | undefined {
  if (typeof detail !== 'object' || detail === null) return undefined;
  const code = (detail as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The event as a FHIR R4 AuditEvent. The patient is an entity referencing `Patient/<id>` (the id
 * of the patients module, which a FHIR facade would serve under that name); the record is an
 * entity identified by `urn:ward:record:<module>:<kind>`; the detail travels verbatim as a JSON
 * string under the record (it may hold a change's before and after values: exports are PHI).
 */
export function toFhirAuditEvent(event: AuditEventJson): FhirAuditEvent {
  const actorKind = event.actor.split(':')[0] ?? event.actor;
  const entities: NonNullable<FhirAuditEvent['entity']> = [];
  // The record's patient, then each other patient a list showed or a batch wrote.
  const patients = new Set([
    ...(event.patientId === null ? [] : [event.patientId]),
    ...(event.patientIds ?? []),
  ]);
  for (const patient of patients)
    entities.push({
      what: { reference: `Patient/${patient}` },
      type: { system: ENTITY_TYPE, code: '1', display: 'Person' },
      role: { system: OBJECT_ROLE, code: '1', display: 'Patient' },
    });
  const hasDetail = event.detail !== null && event.detail !== undefined;
  if (event.recordId !== null || event.kind !== null || hasDetail)
    entities.push({
      what: {
        identifier: {
          system: [WARD_RECORD_SYSTEM, event.module ?? 'core', event.kind ?? 'event'].join(':'),
          value: event.recordId ?? event.id,
        },
      },
      type: { system: ENTITY_TYPE, code: '2', display: 'System Object' },
      ...(hasDetail ? { detail: [{ type: 'ward.detail', valueString: JSON.stringify(event.detail) }] } : {}),
    });
  const code = outcomeCode(event.detail);
  const auth = AUTH_SUBTYPE.get(event.action);
  return {
    resourceType: 'AuditEvent',
    id: event.id,
    type: eventType(event.action, patients.size > 0),
    subtype: [...(auth === undefined ? [] : [auth]), { system: WARD_ACTION_SYSTEM, code: event.action }],
    action: actionCode(event.action),
    recorded: event.at,
    outcome: OUTCOME.get(event.outcome) ?? '8',
    ...(event.outcome !== 'ok' && code !== undefined ? { outcomeDesc: code } : {}),
    agent: [
      {
        type: { text: ACTOR_KIND.get(actorKind) ?? actorKind },
        who: {
          identifier: { system: WARD_ACTOR_SYSTEM, value: event.actor },
          ...(event.username === null ? {} : { display: event.username }),
        },
        ...(event.username === null ? {} : { altId: event.username }),
        requestor: true,
        ...(event.client === null ? {} : { network: { address: event.client, type: NETWORK_TYPE_IP } }),
      },
    ],
    source: {
      observer: { display: 'Ward' },
      type: [{ system: SOURCE_TYPE, code: '4', display: 'Application Server' }],
    },
    ...(entities.length === 0 ? {} : { entity: entities }),
  };
}
