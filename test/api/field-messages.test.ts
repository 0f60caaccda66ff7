/**
 * What @ward/ui shows at a field for the 422s Ward's body validation really sends: plain words for
 * the common JSON Schema failures, the server's own text for anything else; and what its banners
 * tell a person, by error code, in place of Ward's operator wording.
 */
import test from 'ava';
import { ApiError } from '../../src/errors/api-error.ts';
import { compileBody } from '../../src/api/validation.ts';
import { invalidBody } from '../../src/sdk/errors.ts';
import { createAjv } from '../../src/sdk/schema.ts';
import { ROOT } from '../../src/config.ts';

interface Ui {
  ErrorBanner: (props: { error: unknown; title?: string; field?: string }) => unknown;
  MESSAGES: Record<string, { message: string; hint: string }>;
  personMessage: (error: unknown, field?: string) => { message: string; hint: string; known: boolean };
  missingFields: (values: Record<string, unknown>, required: string[]) => Record<string, string>;
  ApiRequestError: new (status: number, error: { code: string; message: string; hint: string }) => Error;
  fieldErrors: (error: unknown) => Record<string, string>;
  plainFieldMessage: (message: string) => string;
}

// The SDK is the browser's JavaScript: loaded by URL, so TypeScript does not look for its types.
const ui = (await import(new URL('frontend/src/ui/index.js', `file://${ROOT}/`).href)) as Ui;
// Loaded as written, not built, its catalogues are ICU text, as a layer's are: they need the parser.
const { loadMessageParser } = (await import(new URL('frontend/src/ui/i18n.js', `file://${ROOT}/`).href)) as {
  loadMessageParser: () => Promise<void>;
};
await loadMessageParser();

/**
 * The text of a Preact element tree, function components called: enough for a banner. Without
 * `folded`, what a closed `<details>` holds is left out, as a browser leaves it undrawn.
 */
function textOf(node: unknown, folded = true): string {
  if (node === null || node === undefined || typeof node === 'boolean') return '';
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map((child) => textOf(child, folded)).join(' ');
  const { type, props } = node as { type: unknown; props: { children?: unknown } };
  if (typeof type === 'function') return textOf((type as (p: object) => unknown)(props), folded);
  if (type === 'details' && !folded) return '';
  return textOf(props.children, folded);
}

/** What a person sees of a banner without opening anything. */
const shownText = (node: unknown): string => textOf(node, false).replace(/\s+/g, ' ');

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

test("an error banner says the person's sentence for the code; the server's words are folded away for an administrator", (t) => {
  const error = ui.ApiRequestError;
  const banner = (status: number, body: { code: string; message: string; hint: string }, field?: string) =>
    ui.ErrorBanner({ error: new error(status, body), title: 'Not saved', field });
  const email = banner(422, {
    code: 'invalid_body',
    message: 'the request body is invalid at /contactEmail: must match format "email"',
    hint: 'fix that field and send it again (GET /api/v1/openapi.json has the schema)',
  });
  t.regex(
    shownText(email),
    /Some of what you entered needs correcting\. Each field to correct says what it needs\./,
  );
  t.notRegex(shownText(email), /must match|openapi|contact email/);
  t.regex(textOf(email), /Details for your administrator .*invalid_body.*openapi\.json/s);
  const denied = banner(403, {
    code: 'permission_denied',
    message: 'permission denied: patients.patient.write',
    hint: 'ask an administrator for a role that grants patients.patient.write (ward users grant <user> <role>)',
  });
  t.regex(shownText(denied), /You do not have permission to do this\./);
  t.notRegex(shownText(denied), /ward users|patients\.patient\.write/);
  const mrn = {
    code: 'conflict',
    message: 'a patient with MRN "A-1" already exists',
    hint: 'give this patient another MRN, or find the existing one with GET /api/v1/patients/patients?q=<mrn>',
  };
  t.regex(shownText(banner(409, mrn, '/mrn')), /Another patient already has this MRN\./);
  t.notRegex(shownText(banner(409, mrn, '/mrn')), /GET|api/);
  t.regex(
    shownText(banner(409, mrn)),
    /Someone else changed this at the same time\./,
    'the field picks the sentence',
  );
});

test("a code the table does not know keeps the server's words, and a layer's own error its message", (t) => {
  const own = new ui.ApiRequestError(400, {
    code: 'invalid_upload',
    message: 'the title is longer than 255 characters',
    hint: 'send a shorter title',
  });
  t.deepEqual(ui.personMessage(own), {
    message: 'the title is longer than 255 characters',
    hint: 'send a shorter title',
    known: false,
  });
  t.regex(
    shownText(ui.ErrorBanner({ error: own })),
    /the title is longer than 255 characters send a shorter title/,
  );
  t.notRegex(textOf(ui.ErrorBanner({ error: own })), /administrator/, 'nothing folded away: it is all shown');
  t.deepEqual(ui.personMessage(new Error('choose a file')), {
    message: 'choose a file',
    hint: '',
    known: false,
  });
});

test('every sentence of the table is for a person: no route, command, JSON pointer or code in it', (t) => {
  for (const [code, { message, hint }] of Object.entries(ui.MESSAGES)) {
    for (const text of [message, hint]) {
      t.regex(text, /^[A-Z].*\.$/s, `${code}: a sentence`);
      t.notRegex(text, /\/api\/|GET |POST |ward [a-z]|<[a-z]+>|_[a-z]|\bJSON\b/, `${code}: ${text}`);
    }
  }
});

test('missingFields names every empty required field at once, blank text included', (t) => {
  t.deepEqual(
    ui.missingFields({ mrn: '', familyName: '  ', givenName: 'Ann', patient: null }, [
      'mrn',
      'familyName',
      'givenName',
      'patient',
    ]),
    {
      '/mrn': 'Fill in this field.',
      '/familyName': 'Fill in this field.',
      '/patient': 'Fill in this field.',
    },
  );
  t.deepEqual(ui.missingFields({ mrn: 'A-1', patient: { id: 1 } }, ['mrn', 'patient']), {});
});
