import test from 'ava';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  IMPORT_FORMATS,
  importItems,
  isImportFormat,
  sourceFields,
} from '../../../modules/migration_import/lib/index.ts';
import type { ImportRecordItem, RecordKind, RecordOf } from '../../../modules/migration_import/lib/index.ts';
import { fixturesDir } from '../../../scripts/generate-import-fixtures.ts';
import { collect, fixture, recordsOf, warningsOf, rules } from './helpers.ts';

/** Records of one kind, without rows (a CSV line and a Bundle entry number differ for the same record). */
const recordsOfKind = <K extends RecordKind>(items: ImportRecordItem[], kind: K): Array<RecordOf[K]> =>
  items.flatMap((item) => (item.kind === kind ? [item.record as RecordOf[K]] : []));

test('Synthea CSV and the FHIR Bundle of the same clinic give the same canonical records', async (t) => {
  const csvPatients = await collect(
    importItems('synthea-patients-csv', fixture('synthea/patients.csv'), { rules }),
  );
  const ids = new Set(recordsOf(csvPatients).map((item) => item.record.sourceId));
  const csvEncounters = await collect(
    importItems('synthea-encounters-csv', fixture('synthea/encounters.csv'), {
      rules,
      knownPatient: (id) => ids.has(id),
    }),
  );
  const fhir = recordsOf(await collect(importItems('fhir-json', fixture('fhir/bundle.json'), { rules })));

  t.deepEqual(warningsOf([...csvPatients, ...csvEncounters]), []);
  t.deepEqual(recordsOfKind(fhir, 'patient'), recordsOfKind(recordsOf(csvPatients), 'patient'));
  t.deepEqual(recordsOfKind(fhir, 'appointment'), recordsOfKind(recordsOf(csvEncounters), 'appointment'));
  t.is(recordsOfKind(fhir, 'appointment').length, 101);
});

test('every FHIR document points at a fixture binary whose SHA-1 and size it states', async (t) => {
  const documents = recordsOfKind(
    recordsOf(await collect(importItems('fhir-json', fixture('fhir/bundle.json'), { rules }))),
    'document',
  );
  t.is(documents.length, 17);
  t.like(documents[0], {
    binaryRef: 'note-0001.txt',
    title: 'Clinical note 2017-08-24',
    contentType: 'text/plain; charset=utf-8',
  });
  for (const document of documents) {
    const binary = await readFile(join(fixturesDir, 'fhir/binaries', document.binaryRef));
    t.is(document.sha1, createHash('sha1').update(binary).digest('hex'), document.binaryRef);
    t.is(document.size, binary.length, document.binaryRef);
  }
});

test('format names: the list, the guard, and each format names its fields its own way', (t) => {
  t.deepEqual(IMPORT_FORMATS, ['synthea-patients-csv', 'synthea-encounters-csv', 'fhir-json', 'fhir-ndjson']);
  t.true(isImportFormat('fhir-ndjson'));
  t.false(isImportFormat('csv'));
  t.is(sourceFields('synthea-patients-csv').patient?.birthDate, 'BIRTHDATE');
  t.is(sourceFields('fhir-json').patient?.birthDate, '/birthDate');
});
