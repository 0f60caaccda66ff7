/**
 * How every ajv instance of Ward is set up (src/sdk/schema.ts), kept apart so that
 * scripts/build-validators.ts compiles the meta-schema validator with the very same settings.
 */
import { createRequire } from 'node:module';
import type { Ajv, Options } from 'ajv';
import type AjvFormats from 'ajv-formats';

// ajv-formats (and the URI parser behind it) load with the first ajv, not with Ward: a start
// compiles no schema. It is CommonJS, so a synchronous require keeps configureAjv synchronous.
const require = createRequire(import.meta.url);

/** The meta-schema a schema without `$schema` is checked against (ajv's default). */
export const DRAFT_07 = 'http://json-schema.org/draft-07/schema';

export const AJV_OPTIONS: Options = {
  allErrors: false,
  // The messages need each error's schema and data.
  verbose: true,
  allowUnionTypes: true,
  // ajv's optimising pass only tidies the generated code; skipping it makes compiling the
  // modules' schemas about a quarter cheaper, for validators that behave the same.
  code: { optimize: false },
};

export function configureAjv<T extends Ajv>(ajv: T): T {
  // `example` is OpenAPI's, common in schemas.
  ajv.addKeyword('example');
  // ajv-formats is CommonJS with `exports.default`; nodenext types its default import as the module.
  const addFormats = (require('ajv-formats') as typeof AjvFormats).default;
  addFormats(ajv);
  return ajv;
}
