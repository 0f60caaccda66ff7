import type { ValidateFunction } from 'ajv';

/** ajv's draft-07 meta-schema validator, generated into draft-07.validate.cjs by scripts/generate-ajv-meta.ts. */
declare const validate: ValidateFunction;
export = validate;
