/**
 * Reads one manifest.json and turns everything wrong with it into ManifestProblems ("manifest
 * errors" in doctor), each with the file, a JSON path and a message an operator can act on.
 */
import { readFile } from 'node:fs/promises';
import type { ValidateFunction } from 'ajv';
import { generatedOnce } from '../generated.ts';
import type { Manifest, ManifestProblem } from '../planner/types.ts';
import { describeJsonError } from '../errors/json-error.ts';
import { schemaErrorProblem } from './schema-messages.ts';
import { isModuleName } from '../planner/names.ts';
import { requiresProblems } from './requires.ts';

/** The schema's validator, built at install (scripts/build-validators.ts). */
const manifestValidator = generatedOnce<ValidateFunction<Manifest>>('manifest.validate.cjs');

export type ManifestResult = { ok: true; manifest: Manifest } | { ok: false; problems: ManifestProblem[] };

export interface ManifestOptions {
  /** The directory name, for modules whose directory must be named after them (official, WARD_MODULE_PATHS). */
  expectedName?: string;
}

export async function readManifest(file: string, options: ManifestOptions = {}): Promise<ManifestResult> {
  const fallbackName = options.expectedName ?? null;
  let text: string;
  try {
    // Editors on Windows may save a byte-order mark, which JSON.parse rejects.
    text = (await readFile(file, 'utf8')).replace(/^\uFEFF/, '');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? String(error);
    return failed([{ file, path: '/', message: `cannot be read (${reason})`, module: fallbackName }]);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return failed([
      { file, path: '/', message: describeJsonError(text, error as Error), module: fallbackName },
    ]);
  }
  return checkManifest(document, file, options);
}

/** Validates a parsed manifest. Fills schema defaults (`depends: []`, `removable: true`) in place. */
export async function checkManifest(
  document: unknown,
  file: string,
  options: ManifestOptions = {},
): Promise<ManifestResult> {
  const name = (document as { name?: unknown } | null)?.name;
  const module = isModuleName(name) ? name : (options.expectedName ?? null);
  const problem = (path: string, message: string): ManifestProblem => ({ file, path, message, module });
  const validate = manifestValidator();
  if (!validate(document)) {
    // A bad role name yields a pattern error and a vaguer propertyNames wrapper; keep the former.
    const errors = (validate.errors ?? []).filter((error) => error.keyword !== 'propertyNames');
    return failed(errors.map((error) => ({ file, module, ...schemaErrorProblem(error) })));
  }
  const problems: ManifestProblem[] = [];
  if (options.expectedName !== undefined && document.name !== options.expectedName) {
    problems.push(
      problem(
        '/name',
        `"${document.name}" differs from its directory name "${options.expectedName}"; rename one`,
      ),
    );
  }
  const prefix = `${document.name}.`;
  document.permissions?.forEach((permission, index) => {
    if (!permission.startsWith(prefix)) {
      problems.push(
        problem(
          `/permissions/${index}`,
          `"${permission}" belongs to another module; this one defines "${prefix}*"`,
        ),
      );
    }
  });
  problems.push(...requiresProblems(document).map(({ path, message }) => problem(path, message)));
  return problems.length > 0 ? failed(problems) : { ok: true, manifest: document };
}

const failed = (problems: ManifestProblem[]): ManifestResult => ({ ok: false, problems });
