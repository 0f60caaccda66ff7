/**
 * Generates, from src/manifests/manifest.schema.json (the one source of truth for manifests),
 * manifest.types.ts: the TypeScript `Manifest` type the code reads, which the type check needs
 * before anything is installed. (The validator is built at install: scripts/build-validators.ts.)
 * Run after editing the schema:  node scripts/generate-manifest-code.ts
 * test/manifests/manifest-code.test.ts fails while it is stale.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { format, resolveConfig } from 'prettier';

const manifests = (file: string) => fileURLToPath(new URL(`../src/manifests/${file}`, import.meta.url));
export const schemaFile = manifests('manifest.schema.json');
export const typesFile = manifests('manifest.types.ts');

const banner = (what: string) =>
  [
    '/**',
    ` * ${what} generated from manifest.schema.json by scripts/generate-manifest-code.ts; do not edit.`,
    ' * To change the manifest, edit the schema and run: node scripts/generate-manifest-code.ts',
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
  await writeFile(typesFile, await generateManifestTypes());
  console.log(`wrote ${typesFile}`);
}
