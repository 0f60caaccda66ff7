/**
 * How every ajv instance of Ward is set up (src/sdk/schema.ts), kept apart so that
 * scripts/build-validators.ts compiles the meta-schema validator with the very same settings.
 */
import type { Ajv, Options } from 'ajv';
import addFormats from 'ajv-formats';

/** The meta-schema a schema without `$schema` is checked against (ajv's default). */
export const DRAFT_07 = 'http://json-schema.org/draft-07/schema';

export const AJV_OPTIONS: Options = {
  allErrors: false,
  // The messages need each error's schema and data.
  verbose: true,
  allowUnionTypes: true,
  // ajv's optimising pass only tidies the generated code; skipping it makes compiling the
  // modules' schemas at start-up about a quarter cheaper, for validators that behave the same.
  code: { optimize: false },
};

export function configureAjv<T extends Ajv>(ajv: T): T {
  // `example` is OpenAPI's, common in schemas.
  ajv.addKeyword('example');
  // ajv-formats is CommonJS with `exports.default`; nodenext types its default import as the module.
  addFormats.default(ajv);
  return ajv;
}
