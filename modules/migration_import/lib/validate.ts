/**
 * Validation of a whole source, streamed: each record's own checks (checks.ts), then the checks
 * across records: duplicate ids, references to unknown patients, binaries not uploaded yet.
 * Records come out only when no error blocks them; warnings come out just before their record.
 *
 * Memory: the only state is the set of source ids seen per kind (ids, never records): about 80
 * bytes per 36-character UUID id in V8 (measured), so some 80 MB for a 1,000,000-row file. An
 * execute pass over a source that already validated clean can set `acrossRecords: false` and run
 * in constant memory.
 */
import type { Buffer } from 'node:buffer';
import type { SdkText } from '../../../src/sdk/index.ts';
import { checkItem } from './checks.ts';
import type { ImportRules } from './rules.ts';
import type {
  ImportItem,
  ImportWarning,
  RecordKind,
  SourceFields,
  SourceItem,
  SourceRecordItem,
} from './records.ts';
import { warn } from './warnings.ts';

export interface ValidateOptions {
  /** The clinic modules' rules (`importRules`): their limits, the documents' title, type and size rules. */
  rules: ImportRules;
  /** How the format names each field; `sourceFields(format)`. Fields not listed keep their canonical name. */
  fields?: SourceFields;
  /** True when a patient with this source id was imported before (from this source system). Only asked for ids not in the file. */
  knownPatient?: (sourceId: string) => boolean | Promise<boolean>;
  /** True when the binary a document refers to has been uploaded; without it, binaries are not checked. */
  hasBinary?: (binaryRef: string) => boolean | Promise<boolean>;
  /** False skips duplicate-id and unknown-patient checks, and their memory; only for a source that validated clean. */
  acrossRecords?: boolean;
  /**
   * The SDK's text rules (`sdk.text`): patients' MRNs and text holding characters the patients API
   * refuses become `invisible_character` errors. Without them (a pass over a source that validated
   * clean) text is still normalised to NFC.
   */
  text?: SdkText;
  /** Largest document content carried inline (FHIR attachment `data`); `rules.maxDocumentBytes` by default. */
  maxDocumentBytes?: number;
  /**
   * Stores a document's inline content under `ref` (as an upload of the binary would), once the
   * document passed every check; a warning when it could not. Without it inline content is checked
   * but kept nowhere (a pass over a source whose content validation stored).
   */
  storeInline?: (
    ref: string,
    content: Buffer,
    contentType: string,
  ) => Promise<ImportWarning | null> | ImportWarning | null;
}

/**
 * A flat copy of `text` that shares no memory with the chunk it was cut from: V8 keeps substrings
 * as views of their parent, so a Set of raw ids would hold every chunk of the file alive.
 */
const detached = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

export class ImportValidator {
  readonly #seen: Record<RecordKind, Set<string>> = {
    patient: new Set(),
    appointment: new Set(),
    document: new Set(),
  };
  readonly #options: ValidateOptions;

  constructor(options: ValidateOptions) {
    this.#options = options;
  }

  /** The item's warnings, then its canonical record unless an error blocks it. */
  async check(item: SourceRecordItem): Promise<ImportItem[]> {
    const names = (item.fields ?? this.#options.fields?.[item.kind]) as
      Partial<Record<string, string>> | undefined;
    const place = { row: item.row, field: (name: string) => (item.at ?? '') + (names?.[name] ?? name) };
    const at = (name: string) => ({ row: item.row, field: place.field(name) });
    const {
      item: checked,
      warnings,
      content,
    } = checkItem(item, place, this.#options.rules, this.#options.text, this.#options.maxDocumentBytes);

    const across = this.#options.acrossRecords ?? true;
    const sourceId = item.record.sourceId?.trim();
    if (across && sourceId) {
      const seen = this.#seen[item.kind];
      // Remembered even when the record is blocked: it is in the file, so its references are not "unknown".
      if (seen.has(sourceId)) warnings.push(warn.duplicateId(at('sourceId'), item.kind, sourceId));
      else seen.add(detached(sourceId));
    }
    if (across && item.kind !== 'patient') {
      const patient = item.record.patientSourceId?.trim();
      if (patient && !this.#seen.patient.has(patient) && !(await this.#options.knownPatient?.(patient)))
        warnings.push(warn.unknownPatient(at('patientSourceId'), item.kind, patient));
    }
    if (item.kind === 'document' && item.record.data === undefined && this.#options.hasBinary !== undefined) {
      const ref = item.record.binaryRef?.trim();
      if (ref && !(await this.#options.hasBinary(ref)))
        warnings.push(warn.binaryMissing(at('binaryRef'), ref));
    }

    const blocked = checked === null || warnings.some((warning) => warning.severity === 'error');
    if (!blocked && checked.kind === 'document' && content !== undefined && this.#options.storeInline) {
      const problem = await this.#options.storeInline(
        checked.record.binaryRef,
        content,
        checked.record.contentType,
      );
      if (problem !== null) warnings.push(problem);
    }
    const items: ImportItem[] = warnings.map((warning) => ({ kind: 'warning', warning }));
    if (checked !== null && !warnings.some((warning) => warning.severity === 'error')) items.push(checked);
    return items;
  }
}

/** Validated items of a reader's stream, in order; the reader's own warnings pass through. */
export async function* validateImport(
  items: AsyncIterable<SourceItem>,
  options: ValidateOptions,
): AsyncGenerator<ImportItem> {
  const validator = new ImportValidator(options);
  for await (const item of items) {
    if (item.kind === 'warning') yield item;
    else yield* await validator.check(item);
  }
}
