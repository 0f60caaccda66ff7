/**
 * Documents: the bytes are the binary uploaded to this job under the document's reference
 * (already in the content-addressed store), so a document row is written only once its binary
 * has arrived, and only when the checksums and size the source declares match what arrived.
 * Ward keeps neither the reference nor the SHA-1, so those never count as changes.
 */
import type { Acting } from '../../../../../src/sdk/index.ts';
import type { DocumentFields } from '../../../../documents/api.ts';
import { planItem } from '../../index.ts';
import type { ImportDocument, ImportRecordItem, Values } from '../../index.ts';
import type { StoredWarning } from '../warning-store.ts';
import { BINARIES, type BinaryRow } from '../binary-store.ts';
import { mappedPatientRecords, unknownPatient } from './references.ts';
import { writeSequenced } from './sequenced.ts';
import { failure, type KindOutcome, type KindPlan, type Planned, type Scope } from './types.ts';

type Item = Extract<ImportRecordItem, { kind: 'document' }>;

/** The documents module's fields; the patient is null only in a preview, for one the same source creates first. */
export type DocumentColumns = Omit<DocumentFields, 'patientId'> & { patientId: number | null };

/** Why the uploaded binary is not the file the source describes, or null. */
function mismatch(record: ImportDocument, binary: BinaryRow): string | null {
  if (record.sha256 !== undefined && record.sha256 !== binary.sha256)
    return `the source gives SHA-256 ${record.sha256}, but binary ${JSON.stringify(record.binaryRef)} has ${binary.sha256}`;
  if (record.sha1 !== undefined && record.sha1 !== binary.sha1)
    return `the source gives SHA-1 ${record.sha1}, but binary ${JSON.stringify(record.binaryRef)} has ${binary.sha1}`;
  if (record.size !== undefined && record.size !== Number(binary.size))
    return `the source gives size ${record.size}, but binary ${JSON.stringify(record.binaryRef)} is ${binary.size} bytes`;
  return null;
}

export async function planDocuments(
  acting: Acting,
  scope: Scope,
  items: readonly Item[],
): Promise<KindPlan<DocumentColumns>> {
  const binaries = new Map(
    (
      (await acting
        .knex(BINARIES)
        .where({ job_id: scope.jobId })
        .whereIn('ref', [...new Set(items.map((item) => item.record.binaryRef))])
        .select('ref', 'sha256', 'sha1', 'size')) as BinaryRow[]
    ).map((row) => [row.ref, row]),
  );
  const { existing, refs } = await mappedPatientRecords(
    acting,
    scope,
    'document',
    scope.peers.documents.getMany,
    items,
  );
  const planned: Array<Planned<DocumentColumns>> = [];
  const failures: StoredWarning[] = [];
  for (const item of items) {
    const { record } = item;
    const binary = binaries.get(record.binaryRef);
    if (binary === undefined) {
      failures.push(
        failure(
          item,
          'binaryRef',
          'binary_missing',
          `binary ${JSON.stringify(record.binaryRef)} has not been uploaded to this job; upload it (POST /jobs/${scope.jobId}/binaries?ref=…), then execute the job again`,
        ),
      );
      continue;
    }
    const wrong = mismatch(record, binary);
    if (wrong !== null) {
      failures.push(
        failure(
          item,
          'binaryRef',
          'binary_mismatch',
          `${wrong}; upload the right file under another reference, or fix the source`,
        ),
      );
      continue;
    }
    const patientId = refs.wardId(record.patientSourceId) ?? null;
    const unmapped = unknownPatient(scope, item, patientId);
    if (unmapped !== null) {
      failures.push(unmapped);
      continue;
    }
    const incoming = { ...item, record: { ...record, sha256: binary.sha256, size: Number(binary.size) } };
    const row = existing(record.sourceId);
    const before: Values<'document'> | undefined = row && {
      patientSourceId: refs.sourceId(row.patientId),
      title: row.title,
      contentType: row.contentType,
      sha256: row.sha256,
      size: row.size,
      binaryRef: record.binaryRef,
      ...(record.sha1 === undefined ? {} : { sha1: record.sha1 }),
    };
    const step = planItem(incoming, row === undefined ? null : { wardId: row.id, values: before! });
    const after = step.after as Values<'document'>;
    planned.push({
      step,
      columns: {
        patientId,
        title: after.title,
        contentType: after.contentType,
        sha256: binary.sha256,
        size: Number(binary.size),
        // The source gives no date for a document, so `document_date` stays unknown.
        source: 'import',
      },
    });
  }
  return { planned, failures };
}

export function writeDocuments(
  acting: Acting,
  scope: Scope,
  plan: KindPlan<DocumentColumns>,
): Promise<KindOutcome> {
  // Execute fails a record whose patient is not mapped (unknownPatient): every one written has one.
  return writeSequenced(acting, scope, 'document', plan as KindPlan<DocumentFields>, (bound, rows) =>
    scope.peers.documents.upsertMany(bound, rows),
  );
}
