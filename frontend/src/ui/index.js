/**
 * `@ward/ui`, the shell SDK: the components the shell and every layer build pages from, and the
 * error a request to Ward throws. Layers import it through the import map, so they share this one
 * copy (and the one Preact under it) with the shell. Every component labels what it shows, keeps
 * the native element that carries the right role (button, table, label), and leaves focus visible.
 */
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { Button } from './forms.js';
import { t } from './strings.js';
// A layer's page may meet any of the shell's words or error sentences: they are all loaded here.
import './shell-catalogue.js';

export { html };
export {
  ApiRequestError,
  Banner,
  Button,
  ButtonLink,
  EmptyState,
  ErrorBanner,
  Field,
  fieldErrors,
  fieldMessage,
  Loading,
  PageHeader,
  plainFieldMessage,
} from './forms.js';
export { ERROR_MESSAGES, MESSAGES, missingFields, personMessage, REQUIRED_FIELD } from './messages.js';
export { formatDate, formatNumber, language, LANGUAGES, locale, translator } from './i18n.js';
export { loadLanguage, setLanguage } from './languages.js';
export { mount } from './mount.js';
export { renderSlot, Slot, SLOT_NAME } from './slots.js';
export { PatientPicker, patientLabel, patientName } from './patients.js';

/**
 * The layer contract's types, for layers to check themselves with (`tsc`, `checkJs`).
 * @typedef {import('./types').Layer} Layer
 * @typedef {import('./types').Route} Route
 * @typedef {import('./types').RouteRender} RouteRender
 * @typedef {import('./types').Extension} Extension
 * @typedef {import('./types').LayerContext} LayerContext
 * @typedef {import('./types').SlotEntry} SlotEntry
 * @typedef {import('./types').Api} Api
 * @typedef {import('./types').Patient} Patient
 * @typedef {import('./types').Messages} Messages
 * @typedef {import('./types').Translate} Translate
 */

/** The SDK version; a layer's `sdk` range is checked against it. */
export const SDK_VERSION = '1.4.0';

/** Previous / next page buttons, in a nav named by `label`. */
export function Pagination({ label = t('ui.pagination'), hasPrevious, hasNext, onPrevious, onNext, status }) {
  return html`<nav class="pagination" aria-label=${label}>
    <${Button} variant="secondary" disabled=${!hasPrevious} onClick=${onPrevious}>${t('ui.previousPage')}<//>
    ${status && html`<span class="pagination-status" aria-live="polite">${status}</span>`}
    <${Button} variant="secondary" disabled=${!hasNext} onClick=${onNext}>${t('ui.nextPage')}<//>
  </nav>`;
}

/**
 * The page a list paged through `nextCursor` shows: `cursor` to send (null for the first page),
 * `page` (1 for the first), and `previous()`, `next(nextCursor)`, `reset()` (back to the first
 * page, as after a new search). Pass it to Pager.
 */
export function usePager() {
  // The cursor of every page up to the one shown: going back needs the ones before.
  const [trail, setTrail] = useState([null]);
  return {
    cursor: trail.at(-1),
    page: trail.length,
    previous: () => setTrail((shown) => (shown.length > 1 ? shown.slice(0, -1) : shown)),
    next: (nextCursor) => setTrail((shown) => [...shown, nextCursor]),
    reset: () => setTrail([null]),
  };
}

/** Previous / next page buttons over a usePager state and the page's `nextCursor`, with "Page n". */
export function Pager({ label, pager, nextCursor }) {
  return html`<${Pagination}
    label=${label}
    status=${t('ui.page', { page: pager.page })}
    hasPrevious=${pager.page > 1}
    hasNext=${nextCursor !== null && nextCursor !== undefined}
    onPrevious=${pager.previous}
    onNext=${() => pager.next(nextCursor)}
  />`;
}

/**
 * A labelled file input with its hint and error, like Field; it never sets the input's value, so a
 * redraw keeps the chosen file. `onChoose(file)` gets the file, or null when the choice is cleared;
 * `inputRef` reaches the input (to focus it, or to clear it after an upload).
 */
export function FileField({ label, name, error, hint, required, onChoose, inputRef, ...rest }) {
  const id = rest.id ?? `field-${name}`;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return html`<div class=${error ? 'field field-invalid' : 'field'}>
    <label for=${id}
      >${label}${required && html`<span class="field-required" aria-hidden="true"> *</span>`}</label
    >
    <input
      type="file"
      class="field-file"
      id=${id}
      name=${name}
      required=${required}
      ref=${inputRef}
      aria-invalid=${error ? 'true' : undefined}
      aria-describedby=${described}
      onChange=${(event) => onChoose?.(event.currentTarget.files?.[0] ?? null, event)}
      ...${rest}
    />
    ${hint && html`<p class="field-hint" id=${hintId}>${hint}</p>`}
    ${error && html`<p class="field-error" id=${errorId}>${error}</p>`}
  </div>`;
}

/**
 * A labelled `<progress>` (its id is `id`) and, given `text`, a line that says it in words
 * (`<id>-text`, announced politely). Without `value` the bar shows work of unknown length.
 */
export function ProgressBar({ id, label, value, max = 100, text }) {
  return html`<div class="field progress">
    <span id=${`${id}-label`}>${label}</span>
    <progress
      id=${id}
      aria-labelledby=${`${id}-label`}
      aria-describedby=${text ? `${id}-text` : undefined}
      max=${max}
      ...${value === undefined ? {} : { value }}
    ></progress>
    ${text && html`<p id=${`${id}-text`} class="field-hint" role="status">${text}</p>`}
  </div>`;
}

/**
 * A table with a caption, column headers and, given `pagination` (Pagination's props), page
 * buttons under it. `columns`: `{key, label, render?(row)}`; `rowKey(row)` keys the rows.
 */
export function Table({ caption, columns, rows, rowKey = (row) => row.id, pagination }) {
  return html`<div class="table-wrap">
    <table class="table">
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          ${columns.map((column) => html`<th scope="col" key=${column.key}>${column.label}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows.map(
          (row) =>
            html`<tr key=${rowKey(row)}>
              ${columns.map(
                (column) =>
                  html`<td key=${column.key}>${column.render ? column.render(row) : row[column.key]}</td>`,
              )}
            </tr>`,
        )}
      </tbody>
    </table>
    ${pagination && html`<${Pagination} ...${pagination} />`}
  </div>`;
}
