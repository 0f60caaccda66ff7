/**
 * Turns ajv's errors into what an operator can act on: the JSON path of the offending field and
 * a message that says what was found and what is allowed, instead of a regular expression.
 */
import type { ErrorObject } from 'ajv';
import { MODULE_NAME_HINT } from '../planner/names.ts';

export function schemaErrorProblem(error: ErrorObject): { path: string; message: string } {
  return { path: errorPath(error), message: describeSchemaError(error) };
}

const escapePointer = (segment: string): string => segment.replaceAll('~', '~0').replaceAll('/', '~1');

/** Unknown fields and bad property names are pointed at themselves, not at the object holding them. */
function errorPath(error: ErrorObject): string {
  const field = error.propertyName ?? (error.params as { additionalProperty?: string }).additionalProperty;
  const path = field === undefined ? error.instancePath : `${error.instancePath}/${escapePointer(field)}`;
  return path === '' ? '/' : path;
}

/** Messages for pattern failures, keyed by the title of the schema definition that failed. */
const patternMessages: Record<string, string> = {
  ModuleName: `is not a valid module name: ${MODULE_NAME_HINT}`,
  RoleName:
    'is not a valid role name: role names are lowercase letters, digits and _, starting with a letter',
  Version: 'is not a semver version such as 1.0.0 or 2.1.0-beta.1',
  Permission:
    'is not a permission name: two or more lowercase segments separated by dots, such as patients.patient.read',
  Grant: 'is not a permission name such as patients.patient.read, or "*" for every permission',
  RoutePath:
    'is not a frontend route of this site: routes start with a single / (// or /\\ would lead to another host) ' +
    'and hold no spaces or control characters (a browser drops them, and /<tab>/host leads to another host)',
  LayerPath:
    'is not a frontend layer path: give a path inside the module directory, relative and without ".."',
};

const article = (type: string): string => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

function describeSchemaError(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  const title = (error.parentSchema as { title?: string } | undefined)?.title;
  switch (error.keyword) {
    case 'required':
      return `missing required field "${String(params.missingProperty)}"`;
    case 'additionalProperties': {
      const allowed = Object.keys((error.parentSchema as { properties?: object }).properties ?? {});
      return `unknown field; allowed fields are ${allowed.join(', ')}`;
    }
    case 'type':
      return `must be ${article(String(params.type))}`;
    case 'uniqueItems': {
      const repeated = (error.data as unknown[])[Number(params.i)];
      return `lists ${JSON.stringify(repeated)} twice (items ${String(params.j)} and ${String(params.i)})`;
    }
    case 'minLength':
      return Number(params.limit) <= 1
        ? 'must not be empty'
        : `must be at least ${String(params.limit)} characters long`;
    case 'pattern': {
      const value = error.propertyName ?? error.data;
      const message = title === undefined ? undefined : patternMessages[title];
      return `${JSON.stringify(value)} ${message ?? `does not match ${String(params.pattern)}`}`;
    }
    default:
      return error.message ?? `fails the schema's ${error.keyword} rule`;
  }
}
