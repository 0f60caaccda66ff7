/**
 * Generates, from src/manifests/manifest.schema.json (the one source of truth for manifests),
 * generated/manifest.types.ts: the TypeScript `Manifest` type the code reads. Like the validators
 * (scripts/build-validators.ts) it is build output, so git ignores it and `npm install` builds it
 * (the `prepare` script, through `npm run build:validators`). Only the type check reads it: the
 * code imports it with `import type`, which Node erases, so a production install (no
 * devDependencies, hence no json-schema-to-typescript) never needs it.
 * Run after editing the schema:  npm run build:validators
 * test/manifests/manifest-code.test.ts fails while it is stale.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { format, resolveConfig } from 'prettier';
import { GENERATED_DIR, generatedFile } from '../src/generated.ts';

export const schemaFile = fileURLToPath(new URL('../src/manifests/manifest.schema.json', import.meta.url));
export const typesFile = generatedFile('manifest.types.ts');

const banner = (what: string) =>
  [
    '/**',
    ` * ${what} generated from manifest.schema.json by scripts/generate-manifest-code.ts; do not edit.`,
    ' * Built at install (git ignores it). After editing the schema run: npm run build:validators',
    ' */',
  ].join('\n');

async function readSchema(): Promise<JSONSchema> {
  return JSON.parse(await readFile(schemaFile, 'utf8')) as JSONSchema;
}

async function formatted(source: string, filepath: string): Promise<string> {
  const config = await resolveConfig(filepath);
  return format(source, { ...config, filepath });
}

export async function generateManifestTypes(): Promise<string> {
  const source = await compile(await readSchema(), 'Manifest', {
    bannerComment: banner('The Manifest type,'),
    format: false,
    additionalProperties: false,
    strictIndexSignatures: true,
    unknownAny: true,
  });
  return formatted(source, typesFile);
}

if (import.meta.main) {
  await mkdir(GENERATED_DIR, { recursive: true });
  await writeFile(typesFile, await generateManifestTypes());
  console.log('ward: Manifest type built (generated/)');
}
