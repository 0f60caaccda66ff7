/**
 * Streaming in bounded memory, measured: the heap after a full collection is sampled every 50,000
 * rows of a generated 200,000-row source and must not grow. Serial, so tests do not share the heap.
 */
import test from 'ava';
import { importItems } from '../../../modules/migration_import/lib/index.ts';
import type { ByteSource, ImportFormat } from '../../../modules/migration_import/lib/index.ts';
import {
  fhirPatientsBundle,
  fhirPatientsNdjson,
  syntheaPatientsCsv,
} from '../../../scripts/generate-import-fixtures.ts';
import { encoded, heapAfterGc, rules } from './helpers.ts';

const ROWS = 200_000;
const EVERY = 50_000;
const MB = 1 << 20;

async function heapSamples(
  format: ImportFormat,
  source: ByteSource,
  acrossRecords: boolean,
): Promise<{ records: number; samples: number[] }> {
  let records = 0;
  const samples: number[] = [];
  for await (const item of importItems(format, source, { rules, acrossRecords })) {
    if (item.kind === 'warning') throw new Error(item.warning.message);
    if (++records % EVERY === 0) samples.push(heapAfterGc());
  }
  return { records, samples };
}

const growth = (samples: number[]): number => Math.max(...samples) - samples[0]!;

const sources: Array<[ImportFormat, (rows: number, seed: number) => AsyncIterable<string>]> = [
  ['synthea-patients-csv', syntheaPatientsCsv],
  ['fhir-json', fhirPatientsBundle],
  ['fhir-ndjson', fhirPatientsNdjson],
];

for (const [format, generate] of sources) {
  test.serial(`${format}: 200,000 rows read and checked in flat memory`, async (t) => {
    const { records, samples } = await heapSamples(format, encoded(generate(ROWS, 1)), false);
    t.is(records, ROWS);
    t.true(growth(samples) < 4 * MB, `heap grew ${(growth(samples) / MB).toFixed(1)} MB`);
  });
}

test.serial('validation across records keeps ids only: well under 150 bytes a row', async (t) => {
  const { records, samples } = await heapSamples(
    'synthea-patients-csv',
    encoded(syntheaPatientsCsv(ROWS, 2)),
    true,
  );
  t.is(records, ROWS);
  const perRow = growth(samples) / (ROWS - EVERY);
  t.true(perRow < 150, `${perRow.toFixed(0)} bytes a row`);
});
