/**
 * What the validators built at install (generated/, scripts/build-validators.ts) save a process:
 * loading each against compiling its schema with ajv at start, as a fresh process does either, in
 * alternating fresh processes. Each child times only its own load or compile; prints the medians
 * and the ratio compile/load.
 *
 *   node bench/validators.ts
 */
import { spawn } from 'node:child_process';
import { ROOT } from '../src/config.ts';
import { median, NODE, ratio } from './lib.ts';

const RUNS = 15;

/** Each variant's body runs in a fresh ES module with `require` from ROOT and ajv's settings at hand. */
const VARIANTS: Record<string, string> = {
  'manifest: load built': "require('./generated/manifest.validate.cjs');",
  'manifest: compile at start': `const { Ajv } = require('ajv');
    const schema = JSON.parse(readFileSync('src/manifests/manifest.schema.json', 'utf8'));
    new Ajv({ allErrors: true, useDefaults: true, verbose: true }).compile(schema);`,
  'draft-07: load built': "require('./generated/draft-07.validate.cjs');",
  'draft-07: compile at start': `const { Ajv } = require('ajv');
    const { AJV_OPTIONS, configureAjv, DRAFT_07 } = await import('./src/sdk/ajv-config.ts');
    configureAjv(new Ajv(AJV_OPTIONS)).getSchema(DRAFT_07);`,
};

function timed(body: string): Promise<number> {
  const script = `import { createRequire } from 'node:module';
    import { readFileSync } from 'node:fs';
    const require = createRequire(${JSON.stringify(`${ROOT}/`)});
    const started = performance.now();
    ${body}
    console.log(performance.now() - started);`;
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(err))));
  });
}

const times = new Map<string, number[]>(Object.keys(VARIANTS).map((name) => [name, []]));
for (let run = 0; run < RUNS; run++)
  for (const [name, body] of Object.entries(VARIANTS)) times.get(name)!.push(await timed(body));
const medianOf = (name: string) => median(times.get(name)!);
for (const schema of ['manifest', 'draft-07']) {
  const [built, compiled] = [medianOf(`${schema}: load built`), medianOf(`${schema}: compile at start`)];
  console.log(
    `${schema} validator: built at install ${built.toFixed(1)} ms, compiled at start ${compiled.toFixed(1)} ms -> compiling costs ${ratio(compiled, built)}`,
  );
}
