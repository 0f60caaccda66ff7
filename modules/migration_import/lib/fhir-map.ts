/**
 * One FHIR R4 resource to one raw record: Patient, Appointment, DocumentReference. Values are
 * taken as found (a number where a string belongs becomes its text) so validation, not this
 * mapping, reports what is wrong with them. FHIR's attachment hash is a base64 SHA-1; it travels as
 * such, and the binary upload computes the sha256 Ward stores.
 */
import type {
  RawAddress,
  Raw,
  ImportAppointment,
  ImportDocument,
  ImportPatient,
  SourceFields,
} from './records.ts';
import type { JsonObject } from './json-stream.ts';

export type Mapped =
  | { kind: 'patient'; record: Raw<ImportPatient> }
  | { kind: 'appointment'; record: Raw<ImportAppointment> }
  | { kind: 'document'; record: Raw<ImportDocument> }
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
  },
};

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

function appointment(resource: JsonObject, fullUrl: string | undefined): Raw<ImportAppointment> {
  const actors = list(resource.participant).map((participant) => asObject(asObject(participant)?.actor));
  const patientActor = actors.find((actor) => refersTo(actor, 'Patient'));
  const practitioner = actors.find((actor) => refersTo(actor, 'Practitioner'));
  const reason = first(resource.reasonCode);
  return {
    sourceId: sourceId(resource, fullUrl),
    patientSourceId: referencedId(text(patientActor?.reference), 'Patient'),
    practitionerName:
      text(practitioner?.display) ?? referencedId(text(practitioner?.reference), 'Practitioner'),
    start: text(resource.start),
    end: text(resource.end),
    status: text(resource.status),
    reason: text(reason?.text) ?? text(first(reason?.coding)?.display) ?? text(resource.description),
  };
}

function documentReference(resource: JsonObject, fullUrl: string | undefined): Raw<ImportDocument> {
  const attachment = asObject(first(resource.content)?.attachment);
  const type = asObject(resource.type);
  return {
    sourceId: sourceId(resource, fullUrl),
    patientSourceId: referencedId(text(asObject(resource.subject)?.reference), 'Patient'),
    title:
      text(attachment?.title) ??
      text(resource.description) ??
      text(type?.text) ??
      text(first(type?.coding)?.display),
    contentType: text(attachment?.contentType),
    sha1: text(attachment?.hash),
    size: text(attachment?.size),
    binaryRef: text(attachment?.url),
  };
}

export function mapResource(value: unknown, fullUrl?: string): Mapped {
  const resource = asObject(value);
  const resourceType = text(resource?.resourceType);
  if (resource === undefined || resourceType === undefined) return { kind: 'not-a-resource' };
  switch (resourceType) {
    case 'Patient':
      return { kind: 'patient', record: patient(resource, fullUrl) };
    case 'Appointment':
      return { kind: 'appointment', record: appointment(resource, fullUrl) };
    case 'DocumentReference':
      return { kind: 'document', record: documentReference(resource, fullUrl) };
    default:
      return { kind: 'unsupported', resourceType };
  }
}
