/**
 * The part of `@ward/ui` the sign-in page needs (the request error, buttons, fields, banners), in a
 * module of its own so the first page loads it without the rest of the library.
 */
import { html } from './html.js';
import { personMessage } from './messages.js';
import { t } from './strings.js';

/**
 * A failed request to Ward: `status`, and Ward's `{error: {code, message, hint}}`. `pointer` is the
 * JSON pointer a 422 `invalid_body` names (`/mrn`), or null. `details` keeps the error's other
 * fields (the `findings` of a 409 `restart_refused`), `{}` when it has none.
 */
export class ApiRequestError extends Error {
  constructor(status, { code, message, hint, ...details }) {
    super(message);
    this.name = 'ApiRequestError';
    this.status = status;
    this.code = code;
    this.hint = hint ?? '';
    this.pointer = bodyPointer(code, message);
    this.details = details;
  }
}

const INVALID_AT = /^the request body is invalid at (\/\S*): (.*)$/s;
const MISSING = /^missing required field "([^"]+)"/;

/** Where an `invalid_body` message says the body is wrong; a missing field is pointed at itself. */
function bodyPointer(code, message) {
  if (code !== 'invalid_body') return null;
  const found = INVALID_AT.exec(message);
  if (found === null) return null;
  const missing = MISSING.exec(found[2]);
  return missing === null ? found[1] : `${found[1] === '/' ? '' : found[1]}/${missing[1]}`;
}

/** The JSON Schema `format`s and types Ward's 422 names that people are asked for in their words. */
const FORMATS = new Set(['email', 'date', 'date-time', 'time', 'uri', 'uuid']);
const TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/**
 * The server's words for a field (Ward's JSON Schema messages) in a clerk's words, or the server's
 * own text when it says something else (a module's own check already speaks plainly).
 */
/** @type {Array<[RegExp, (groups: string[]) => string | null]>} */
const PLAIN = [
  [/^missing required field "[^"]+"$/, () => t('ui.required')],
  [/^must not be empty$/, () => t('ui.required')],
  [/^must match format "([^"]+)"$/, ([format]) => (FORMATS.has(format) ? t(`field.${format}`) : null)],
  [/^must NOT have more than (\d+) characters?$/, ([n]) => t('field.maxLength', { n: Number(n) })],
  [/^must NOT have fewer than (\d+) characters?$/, ([n]) => t('field.minLength', { n: Number(n) })],
  [/^must be equal to one of the allowed values$/, () => t('field.enum')],
  [/^".*" does not match .+$/s, () => t('field.pattern')],
  [/^must be an? (\w+)$/, ([type]) => (TYPES.has(type) ? t(`field.${type}`) : null)],
  [/^must be >= (\S+)$/, ([n]) => t('field.min', { n })],
  [/^must be <= (\S+)$/, ([n]) => t('field.max', { n })],
  [/^must be > (\S+)$/, ([n]) => t('field.exclusiveMin', { n })],
  [/^must be < (\S+)$/, ([n]) => t('field.exclusiveMax', { n })],
];

/** `message` (what Ward said about one field) in plain words; the message itself when none fit. */
export function plainFieldMessage(message) {
  for (const [pattern, words] of PLAIN) {
    const found = pattern.exec(message);
    if (found !== null) return words(found.slice(1)) ?? message;
  }
  return message;
}

/**
 * The message of a field's 422, without "the request body is invalid at …", in plain words
 * (plainFieldMessage), for showing at the field.
 */
export function fieldMessage(error) {
  const found = INVALID_AT.exec(error.message);
  return found === null ? error.message : plainFieldMessage(found[2]);
}

/** `{pointer: message}` for an error that names a body field, else `{}`: for a form's `errors`. */
export function fieldErrors(error) {
  return error instanceof ApiRequestError && error.pointer !== null && error.pointer !== '/'
    ? { [error.pointer]: fieldMessage(error) }
    : {};
}

/** The page's title (the one h1, focused after navigation), a line under it, and its actions. */
export function PageHeader({ title, description, actions }) {
  return html`<header class="page-header">
    <div>
      <h1 tabindex="-1" data-page-title>${title}</h1>
      ${description && html`<p class="page-description">${description}</p>`}
    </div>
    ${actions && html`<div class="page-actions">${actions}</div>`}
  </header>`;
}

/** A native button; `variant`: primary, secondary, danger. `busy` disables it and says so. */
export function Button({ variant = 'primary', type = 'button', busy = false, disabled, children, ...rest }) {
  return html`<button
    class=${`button button-${variant}`}
    type=${type}
    disabled=${busy || disabled}
    aria-busy=${busy ? 'true' : undefined}
    ...${rest}
  >
    ${children}
  </button>`;
}

/** A link that looks like a button: for navigation ("New patient"), which must stay a link. */
export function ButtonLink({ variant = 'primary', href, children, ...rest }) {
  return html`<a class=${`button button-${variant}`} href=${href} ...${rest}>${children}</a>`;
}

/**
 * A labelled input (or `options` for a select) with its hint and its error, both tied to it with
 * aria-describedby; `error` also sets aria-invalid. `required` marks the label with a * that
 * assistive technology skips: it announces the input's own `required`. Its id is `field-<name>` unless `id` is given.
 */
export function Field({
  label,
  name,
  value,
  onInput,
  type = 'text',
  error,
  hint,
  required,
  options,
  ...rest
}) {
  const id = rest.id ?? `field-${name}`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  const common = {
    id,
    name,
    required,
    'aria-invalid': error ? 'true' : undefined,
    'aria-describedby': described,
    onInput: onInput && ((event) => onInput(event.currentTarget.value, event)),
    ...rest,
  };
  const control =
    options === undefined
      ? html`<input type=${type} value=${value ?? ''} ...${common} />`
      : html`<select value=${value ?? ''} ...${common}>
          ${options.map((option) => html`<option value=${option.value}>${option.label}</option>`)}
        </select>`;
  return html`<div class=${error ? 'field field-invalid' : 'field'}>
    <label for=${id}
      >${label}${required && html`<span class="field-required" aria-hidden="true"> *</span>`}</label
    >
    ${control} ${hint && html`<p class="field-hint" id=${hintId}>${hint}</p>`}
    ${error && html`<p class="field-error" id=${errorId}>${error}</p>`}
  </div>`;
}

/**
 * A message across the page; `kind`: info, success, warning, error. Errors and warnings are
 * announced at once (role=alert), the others politely (role=status).
 */
export function Banner({ kind = 'info', title, children, action }) {
  const role = kind === 'error' || kind === 'warning' ? 'alert' : 'status';
  return html`<div class=${`banner banner-${kind}`} role=${role}>
    <div class="banner-text">${title && html`<p class="banner-title">${title}</p>`} ${children}</div>
    ${action && html`<div class="banner-action">${action}</div>`}
  </div>`;
}

/**
 * A failed request as a banner, in the words of the person in front of the page (personMessage:
 * by the error's code, and `field` when the form knows which field it is about). When those
 * replace Ward's own words, which are written for operators, the server's code, message and hint
 * stay folded away under "Details for your administrator", for whoever is asked to help.
 */
export function ErrorBanner({ error, title, field }) {
  const { message, hint, known } = personMessage(error, field);
  // What Ward (or the browser, for a part of the page that failed to load) said, for an administrator.
  const server = known && typeof error?.code === 'string' && typeof error.message === 'string' ? error : null;
  return html`<${Banner} kind="error" title=${title}>
    <p>${message}</p>
    ${hint && html`<p class="banner-hint">${hint}</p>`}
    ${
      server &&
      html`<details class="banner-details">
        <summary>${t('ui.details')}</summary>
        <p><code>${server.code}</code>: ${server.message}</p>
        ${server.hint && html`<p>${server.hint}</p>`}
      </details>`
    }
  <//>`;
}

/** What a page shows when it has nothing to list: what that means and what to do next. */
export function EmptyState({ title, children, action }) {
  return html`<div class="empty-state">
    <p class="empty-title">${title}</p>
    ${children && html`<div>${children}</div>`} ${action && html`<div class="empty-action">${action}</div>`}
  </div>`;
}

/** "Loading…", announced politely. */
export function Loading({ label = t('ui.loading') }) {
  return html`<p class="loading" role="status">${label}</p>`;
}
