/**
 * migration_import's JSON parser (lib/json-stream.ts) against the well-kept streaming parsers that
 * could replace it, on the same 20,000-entry FHIR Bundle (about 13 MB) in 64 KiB chunks, each
 * handing out the Bundle's entries one at a time: @streamparser/json (`JSONParser`, paths
 * `$.entry.*`) and stream-json (`parser`, `pick`, `streamArray`), with `JSON.parse` of the whole
 * text as the floor. The libraries parse only: none of the entry caps, notes or line/column errors
 * that a replacement would have to add on top is counted. Not part of `npm run bench`, since the
 * libraries are not Ward's dependencies; install them without saving first:
 *
 *   npm install --no-save @streamparser/json stream-json && node bench/json-parsers.ts
 */
import { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { JsonStreamParser } from '../modules/migration_import/lib/json-stream.ts';
import { fhirPatientsBundle } from '../scripts/generate-import-fixtures.ts';
import { median, ratio } from './lib.ts';

const ENTRIES = 20_000;
const RUNS = 5;
const CHUNK = 1 << 16;

/** A package by a name TypeScript does not resolve: these are not Ward's dependencies. */
const load = async (specifier: string): Promise<Record<string, unknown>> =>
  (await import(specifier)) as Record<string, unknown>;

let text = '';
for await (const piece of fhirPatientsBundle(ENTRIES, 7)) text += piece;
const chunks: string[] = [];
for (let at = 0; at < text.length; at += CHUNK) chunks.push(text.slice(at, at + CHUNK));

type Streamer = { write(chunk: string): void; end(): void; isEnded: boolean; onValue: () => void };

async function handWritten(): Promise<number> {
  const parser = new JsonStreamParser({ splitKey: 'entry' });
  let entries = 0;
  for (const chunk of chunks) entries += parser.push(chunk).filter((event) => event.kind === 'item').length;
  parser.end();
  return entries;
}

async function streamparser(): Promise<number> {
  const { JSONParser } = (await load('@streamparser/json')) as {
    JSONParser: new (options: object) => Streamer;
  };
  const parser = new JSONParser({ paths: ['$.entry.*'], keepStack: false });
  let entries = 0;
  parser.onValue = () => void entries++;
  for (const chunk of chunks) parser.write(chunk);
  if (!parser.isEnded) parser.end();
  return entries;
}

async function streamJson(): Promise<number> {
  const { parser } = (await load('stream-json')) as { parser: () => unknown };
  const { pick } = (await load('stream-json/filters/pick.js')) as { pick: (options: object) => unknown };
  const { streamArray } = (await load('stream-json/streamers/stream-array.js')) as {
    streamArray: () => unknown;
  };
  const { default: chain } = (await load('stream-chain')) as {
    default: (steps: unknown[]) => NodeJS.ReadWriteStream;
  };
  let entries = 0;
  const count = () => void entries++;
  const pipeline = chain([Readable.from(chunks), parser(), pick({ filter: 'entry' }), streamArray(), count]);
  await new Promise((resolve, reject) => {
    pipeline.on('finish', resolve).on('end', resolve).on('error', reject);
    pipeline.resume();
  });
  return entries;
}

async function whole(): Promise<number> {
  return (JSON.parse(text) as { entry: unknown[] }).entry.length;
}

async function time(parse: () => Promise<number>): Promise<number | null> {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    let entries: number;
    try {
      entries = await parse();
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') return null;
      throw error;
    }
    if (entries !== ENTRIES) throw new Error(`${entries} entries, not ${ENTRIES}`);
    times.push(performance.now() - started);
  }
  return median(times);
}

const ours = (await time(handWritten))!;
console.log(
  `FHIR Bundle of ${ENTRIES} entries, ${(text.length / 1e6).toFixed(1)} MB, ${CHUNK}-character chunks:`,
);
console.log(`  hand-written (lib/json-stream.ts) ${ours.toFixed(0)} ms`);
for (const [name, parse] of [
  ['@streamparser/json', streamparser],
  ['stream-json', streamJson],
  ['JSON.parse, whole text', whole],
] as const) {
  const ms = await time(parse);
  console.log(
    ms === null
      ? `  ${name}: not installed (npm install --no-save @streamparser/json stream-json)`
      : `  ${name} ${ms.toFixed(0)} ms -> ${ratio(ms, ours)} the hand-written parser's time`,
  );
}
