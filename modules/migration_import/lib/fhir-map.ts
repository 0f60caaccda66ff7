/**
 * One FHIR R4 resource to one raw record: Patient, Appointment, Encounter (a past appointment),
 * DocumentReference (its attachment at a url to upload, or inline in `data`). Values are
 * taken as found (a number where a string belongs becomes its text) so validation, not this
 * mapping, reports what is wrong with them. FHIR's attachment hash is a base64 SHA-1; it travels as
 * such, and the binary upload computes the sha256 Ward stores.
 */
import type {
  RawAddress,
  Raw,
  RawDocument,
  ImportAppointment,
  ImportPatient,
  SourceFields,
} from './records.ts';
import type { JsonObject } from './json-stream.ts';

export type Mapped =
  | { kind: 'patient'; record: Raw<ImportPatient> }
  | { kind: 'appointment'; record: Raw<ImportAppointment>; fields?: SourceFields['appointment'] }
  | { kind: 'document'; record: RawDocument }
  | { kind: 'unsupported'; resourceType: string }
  | { kind: 'not-a-resource' };

export const FHIR_FIELDS: SourceFields = {
  patient: {
    sourceId: '/id',
    mrn: '/identifier',
    familyName: '/name/0/family',
    givenName: '/name/0/given',
    birthDate: '/birthDate',
    sex: '/gender',
    phone: '/telecom',
    email: '/telecom',
    address: '/address/0',
  },
  appointment: {
    sourceId: '/id',
    patientSourceId: '/participant',
    practitionerName: '/participant',
    start: '/start',
    end: '/end',
    status: '/status',
    reason: '/reasonCode/0',
  },
  document: {
    sourceId: '/id',
    patientSourceId: '/subject/reference',
    title: '/content/0/attachment/title',
    contentType: '/content/0/attachment/contentType',
    sha1: '/content/0/attachment/hash',
    size: '/content/0/attachment/size',
    binaryRef: '/content/0/attachment/url',
    data: '/content/0/attachment/data',
  },
};

/** Where an Encounter, imported as a past appointment, keeps each field. */
export const ENCOUNTER_FIELDS: SourceFields['appointment'] = {
  sourceId: '/id',
  patientSourceId: '/subject/reference',
  practitionerName: '/participant',
  start: '/period/start',
  end: '/period/end',
  status: '/status',
  reason: '/reasonCode/0',
};

/**
 * FHIR Encounter.status to the appointment status it means; an Encounter is a visit that took
 * place (or was meant to), so a finished one is a fulfilled appointment, as Synthea's
 * encounters.csv is read. A status not listed (in-progress, onleave, unknown) is passed on as
 * found, so validation reports it instead of guessing.
 */
// A Map: the status comes from the file, and "constructor" would find a function in an object literal.
const ENCOUNTER_STATUSES: ReadonlyMap<string, string> = new Map([
  ['planned', 'booked'],
  ['arrived', 'arrived'],
  ['finished', 'fulfilled'],
  ['cancelled', 'cancelled'],
  ['entered-in-error', 'entered-in-error'],
]);

/**
 * What `urn:uuid:` references of one source point at: the patient whose entry had that `fullUrl`.
 * Only entries whose id differs from their fullUrl's uuid are remembered (Synthea's never do), at
 * most `MAX_ALIASES` of them; a reference not remembered is taken to name the id itself.
 */
export class FullUrls {
  static readonly MAX_ALIASES = 100_000;
  readonly #patients = new Map<string, string>();

  remember(fullUrl: string | undefined, id: string | undefined): void {
    if (fullUrl === undefined || id === undefined || !fullUrl.startsWith('urn:uuid:')) return;
    if (fullUrl.slice('urn:uuid:'.length) === id || this.#patients.size >= FullUrls.MAX_ALIASES) return;
    this.#patients.set(fullUrl, id);
  }

  patient(reference: string | undefined): string | undefined {
    return (reference !== undefined && this.#patients.get(reference)) || referencedId(reference, 'Patient');
  }
}

export const asObject = (value: unknown): JsonObject | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string | undefined =>
  typeof value === 'string'
    ? value
    : typeof value === 'number' || typeof value === 'boolean'
      ? String(value)
      : undefined;
const first = (value: unknown): JsonObject | undefined => asObject(list(value)[0]);

/**
 * The id a reference points at when it names `type` (`Patient/1`, an absolute URL, `urn:uuid:…`,
 * which Synthea's bundles use); otherwise the reference itself, which then matches no patient and
 * is reported as unknown with its text.
 */
export function referencedId(reference: string | undefined, type: string): string | undefined {
  if (reference === undefined) return undefined;
  const typed = new RegExp(`(?:^|/)${type}/([^/]+)(?:/_history/[^/]+)?$`).exec(reference);
  if (typed !== null) return typed[1];
  if (reference.startsWith('urn:uuid:')) return reference.slice('urn:uuid:'.length);
  return reference;
}

function refersTo(actor: JsonObject | undefined, type: string): boolean {
  if (actor === undefined) return false;
  const reference = text(actor.reference) ?? '';
  return actor.type === type || new RegExp(`(?:^|/)${type}/`).test(reference);
}

function sourceId(resource: JsonObject, fullUrl: string | undefined): string | undefined {
  const id = text(resource.id);
  if (id !== undefined || fullUrl === undefined || !fullUrl.startsWith('urn:uuid:')) return id;
  return fullUrl.slice('urn:uuid:'.length);
}

function isMrn(identifier: JsonObject): boolean {
  const type = asObject(identifier.type);
  const codes = list(type?.coding).map((coding) => asObject(coding)?.code);
  return (
    codes.includes('MR') ||
    /medical record|\bmrn\b/i.test(text(type?.text) ?? '') ||
    /mrn/i.test(text(identifier.system) ?? '')
  );
}

function patient(resource: JsonObject, fullUrl: string | undefined): Raw<ImportPatient> {
  const name = first(resource.name);
  const given = list(name?.given)
    .map(text)
    .filter((part) => part !== undefined);
  const telecom = list(resource.telecom).map(asObject);
  const contact = (system: string) => text(telecom.find((point) => point?.system === system)?.value);
  const mrn = list(resource.identifier)
    .map(asObject)
    .find((identifier) => identifier && isMrn(identifier));
  const place = first(resource.address);
  const address: RawAddress | undefined = place && {
    lines: list(place.line)
      .map(text)
      .filter((line) => line !== undefined),
    city: text(place.city),
    state: text(place.state),
    postalCode: text(place.postalCode),
    country: text(place.country),
  };
  return {
    sourceId: sourceId(resource, fullUrl),
    mrn: text(mrn?.value),
    familyName: text(name?.family),
    givenName: given.length === 0 ? undefined : given.join(' '),
    birthDate: text(resource.birthDate),
    sex: text(resource.gender),
    phone: contact('phone'),
    email: contact('email'),
    address,
  };
}

function appointment(
  resource: JsonObject,
  fullUrl: string | undefined,
  urls: FullUrls,
): Raw<ImportAppointment> {
  const actors = list(resource.participant).map((participant) => asObject(asObject(participant)?.actor));
  const patientActor = actors.find((actor) => refersTo(actor, 'Patient'));
  const practitioner = actors.find((actor) => refersTo(actor, 'Practitioner'));
  const reason = first(resource.reasonCode);
  return {
    sourceId: sourceId(resource, fullUrl),
    patientSourceId: urls.patient(text(patientActor?.reference)),
    practitionerName:
      text(practitioner?.display) ?? referencedId(text(practitioner?.reference), 'Practitioner'),
    start: text(resource.start),
    end: text(resource.end),
    status: text(resource.status),
    reason: text(reason?.text) ?? text(first(reason?.coding)?.display) ?? text(resource.description),
  };
}

function encounter(
  resource: JsonObject,
  fullUrl: string | undefined,
  urls: FullUrls,
): Raw<ImportAppointment> {
  const period = asObject(resource.period);
  const people = list(resource.participant).map((participant) => asObject(asObject(participant)?.individual));
  // Synthea names practitioners by a conditional reference (`Practitioner?identifier=…`).
  const practitioner =
    people.find(
      (person) =>
        person?.type === 'Practitioner' ||
        /^Practitioner[/?]|\/Practitioner\//.test(text(person?.reference) ?? ''),
    ) ?? people.find((person) => person !== undefined);
  const reason = first(resource.reasonCode);
  const type = first(resource.type);
  const status = text(resource.status);
  return {
    sourceId: sourceId(resource, fullUrl),
    patientSourceId: urls.patient(text(asObject(resource.subject)?.reference)),
    practitionerName:
      text(practitioner?.display) ?? referencedId(text(practitioner?.reference), 'Practitioner'),
    start: text(period?.start),
    end: text(period?.end),
    status: status === undefined ? undefined : (ENCOUNTER_STATUSES.get(status) ?? status),
    // The kind of visit ("General examination of patient") when no reason was recorded, as for CSV.
    reason:
      text(reason?.text) ??
      text(first(reason?.coding)?.display) ??
      text(type?.text) ??
      text(first(type?.coding)?.display),
  };
}

function documentReference(resource: JsonObject, fullUrl: string | undefined, urls: FullUrls): RawDocument {
  const attachment = asObject(first(resource.content)?.attachment);
  const type = asObject(resource.type);
  return {
    sourceId: sourceId(resource, fullUrl),
    patientSourceId: urls.patient(text(asObject(resource.subject)?.reference)),
    title:
      text(attachment?.title) ??
      text(resource.description) ??
      text(type?.text) ??
      text(first(type?.coding)?.display),
    contentType: text(attachment?.contentType),
    sha1: text(attachment?.hash),
    size: text(attachment?.size),
    binaryRef: text(attachment?.url),
    // Inline content wins over a url: it is the file itself, the url only where it came from.
    ...(typeof attachment?.data === 'string' ? { data: attachment.data } : {}),
  };
}

export function mapResource(value: unknown, fullUrl?: string, urls: FullUrls = new FullUrls()): Mapped {
  const resource = asObject(value);
  const resourceType = text(resource?.resourceType);
  if (resource === undefined || resourceType === undefined) return { kind: 'not-a-resource' };
  switch (resourceType) {
    case 'Patient': {
      const record = patient(resource, fullUrl);
      urls.remember(fullUrl, record.sourceId);
      return { kind: 'patient', record };
    }
    case 'Appointment':
      return { kind: 'appointment', record: appointment(resource, fullUrl, urls) };
    case 'Encounter':
      return { kind: 'appointment', record: encounter(resource, fullUrl, urls), fields: ENCOUNTER_FIELDS };
    case 'DocumentReference':
      return { kind: 'document', record: documentReference(resource, fullUrl, urls) };
    default:
      return { kind: 'unsupported', resourceType };
  }
}
