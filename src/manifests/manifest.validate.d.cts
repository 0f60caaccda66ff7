import type { ValidateFunction } from 'ajv';
import type { Manifest } from './manifest.types.ts';

/** The ajv validator generated into manifest.validate.cjs by scripts/generate-manifest-code.ts. */
declare const validate: ValidateFunction<Manifest>;
export = validate;
