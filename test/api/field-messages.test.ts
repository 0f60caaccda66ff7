/**
 * What @ward/ui shows at a field for the 422s Ward's body validation really sends: plain words for
 * the common JSON Schema failures, the server's own text for anything else.
 */
import test from 'ava';
import { ApiError } from '../../src/errors/api-error.ts';
import { compileBody } from '../../src/api/validation.ts';
import { invalidBody } from '../../src/sdk/errors.ts';
import { createAjv } from '../../src/sdk/schema.ts';
import { ROOT } from '../../src/config.ts';

interface Ui {
  ErrorBanner: (props: { error: unknown; title?: string }) => unknown;
  ApiRequestError: new (status: number, error: { code: string; message: string; hint: string }) => Error;
  fieldErrors: (error: unknown) => Record<string, string>;
  plainFieldMessage: (message: string) => string;
}

// The SDK is the browser's JavaScript: loaded by URL, so TypeScript does not look for its types.
const ui = (await import(new URL('frontend/src/ui/index.js', `file://${ROOT}/`).href)) as Ui;

/** The text a Preact element tree shows, function components called: enough for a banner. */
function textOf(node: unknown): string {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join(' ');
  const { type, props } = node as { type: unknown; props: { children?: unknown } };
  if (typeof type === 'function') return textOf((type as (p: object) => unknown)(props));
  return textOf(props.children);
}

const PATIENT = {
  type: 'object',
  required: ['name'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 20 },
    email: { type: 'string', format: 'email' },
    born: { type: 'string', format: 'date' },
    seen: { type: 'string', format: 'date-time' },
    sex: { enum: ['female', 'male', 'other'] },
    mrn: { type: 'string', pattern: '^[A-Z]{3}[0-9]{4}$' },
    visits: { type: 'integer', minimum: 0 },
  },
};

const validate = compileBody(createAjv(), PATIENT);

/** The field errors the SDK derives from the 422 Ward answers for `body`. */
function shown(body: object): Record<string, string> {
  try {
    validate(body);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return ui.fieldErrors(new ui.ApiRequestError(error.status, error));
  }
  throw new Error(`${JSON.stringify(body)} passed validation`);
}

test('common JSON Schema failures read as what to enter, at their field', (t) => {
  t.deepEqual(shown({ name: 'Ada', email: 'ada' }), {
    '/email': 'Enter an email address, such as name@example.org.',
  });
  t.deepEqual(shown({ name: 'Ada', born: '14/03/1990' }), {
    '/born': 'Enter a date as year-month-day, such as 2026-03-14.',
  });
  t.deepEqual(shown({ name: 'Ada', seen: 'yesterday' }), {
    '/seen': 'Enter a full date and time, such as 2026-03-14T09:30:00Z.',
  });
  t.deepEqual(shown({}), { '/name': 'Fill in this field.' });
  t.deepEqual(shown({ name: '' }), { '/name': 'Fill in this field.' });
  t.deepEqual(shown({ name: 'A'.repeat(21) }), { '/name': 'Use at most 20 characters.' });
  t.deepEqual(shown({ name: 'Ada', sex: 'f' }), { '/sex': 'Choose one of the offered values.' });
  t.deepEqual(shown({ name: 'Ada', mrn: 'abc' }), {
    '/mrn': 'This is not in the expected form; check what the field asks for.',
  });
  t.deepEqual(shown({ name: 'Ada', visits: 1.5 }), { '/visits': 'Enter a whole number.' });
  t.deepEqual(shown({ name: 'Ada', visits: -1 }), { '/visits': 'Enter 0 or more.' });
});

test("a message with no plain form keeps the server's own text", (t) => {
  const own = invalidBody('/mrn', 'is already used by patient 12');
  t.deepEqual(ui.fieldErrors(new ui.ApiRequestError(own.status, own)), {
    '/mrn': 'is already used by patient 12',
  });
  t.is(ui.plainFieldMessage('must match format "hostname"'), 'must match format "hostname"');
  t.is(
    ui.plainFieldMessage('"ab" is not a valid role name: role names are lowercase letters'),
    '"ab" is not a valid role name: role names are lowercase letters',
  );
});

test('an error banner for a field failure says it in plain words and names the field', (t) => {
  const error = ui.ApiRequestError;
  const banner = (status: number, body: { code: string; message: string; hint: string }) =>
    textOf(ui.ErrorBanner({ error: new error(status, body), title: 'Not saved' }));
  const email = banner(422, {
    code: 'invalid_body',
    message: 'the request body is invalid at /contactEmail: must match format "email"',
    hint: 'fix that field and send it again (GET /api/v1/openapi.json has the schema)',
  });
  t.regex(email, /Enter an email address, such as name@example.org\./);
  t.regex(email, /Correct the contact email field, then try again\./);
  t.notRegex(email, /must match|openapi/);
  const denied = banner(403, {
    code: 'forbidden',
    message: 'permission denied: patients.patient.write',
    hint: 'ask an administrator for a role that grants it',
  });
  t.regex(denied, /permission denied: patients\.patient\.write/);
  t.regex(denied, /ask an administrator for a role that grants it/);
});
