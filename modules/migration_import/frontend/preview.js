/**
 * What execute would do now (POST /jobs/{id}/preview, which writes nothing): counts to create,
 * update and skip per kind, and the first rows of each with their before and after.
 */
import { useState } from 'preact/hooks';
import { Button, ErrorBanner, html, Table } from '@ward/ui';
import { JOBS, KINDS } from './shared.js';

const SAMPLE = 5;

const ACTIONS = [
  { key: 'create', label: 'To create' },
  { key: 'update', label: 'To update' },
  { key: 'skip', label: 'To skip (unchanged)' },
];

/** A value as text: a nested one (an address) as its filled parts, comma-separated. */
const text = (value) =>
  typeof value === 'object' && value !== null
    ? Object.values(value)
        .filter((part) => part !== null && part !== undefined && part !== '')
        .map(text)
        .join(', ')
    : String(value);

/** A record's values as "field: value" lines; what changed is marked on the after side. */
function Values({ values, changed }) {
  if (values === null) return html`<span>— (new)</span>`;
  return html`<ul style="margin: 0; padding-left: 1rem">
    ${Object.entries(values)
      .filter(([, value]) => value !== null && value !== undefined && value !== '')
      .map(
        ([key, value]) =>
          html`<li key=${key}>
            ${changed?.has(key) ? html`<strong>${key}: ${text(value)} (changed)</strong>` : `${key}: ${text(value)}`}
          </li>`,
      )}
  </ul>`;
}

const SAMPLE_COLUMNS = [
  { key: 'row', label: 'Row' },
  { key: 'kind', label: 'Kind' },
  {
    key: 'sourceId',
    label: 'Source id',
    // A patient Ward already holds opens its chart: what is about to change, in full.
    render: (step) =>
      step.kind === 'patient' && step.wardId !== null && step.wardId !== undefined
        ? html`<a href=${`/patients/${step.wardId}`}>${step.sourceId}</a>`
        : step.sourceId,
  },
  {
    key: 'before',
    label: 'Before',
    render: (step) =>
      step.hidden
        ? html`<span>not shown: reading Ward's record needs ${step.hidden}</span>`
        : html`<${Values} values=${step.before} />`,
  },
  {
    key: 'after',
    label: 'After',
    render: (step) =>
      step.hidden
        ? html`<span
            >${step.changes.length === 0 ? 'no change' : `changes ${step.changes.map((change) => change.field).join(', ')}`}</span
          >`
        : html`<${Values}
            values=${step.after}
            changed=${new Set(step.changes.map((change) => change.field))}
          />`,
  },
];

export function Preview({ context, job }) {
  const [preview, setPreview] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  const load = async () => {
    setBusy(true);
    setError(null);
    try {
      setPreview(await context.api.post(`${JOBS}/${job.id}/preview?sample=${SAMPLE}`));
    } catch (caught) {
      setError(caught);
    }
    setBusy(false);
  };

  const countRows = preview && [
    ...KINDS.map((kind) => ({ id: kind.key, label: kind.label, ...preview.counts[kind.key] })),
    { id: 'total', label: 'Total', ...preview.totals },
  ];

  return html`<section aria-labelledby="preview-title">
    <h2 id="preview-title">Preview</h2>
    <p>What execute would do now, against the records Ward holds; the preview changes nothing.</p>
    <${Button} variant="secondary" busy=${busy} onClick=${load}>${preview ? 'Preview again' : 'Preview'}<//>
    ${error && html`<${ErrorBanner} title="The preview failed" error=${error} />`}
    ${
      preview &&
      html`<${Table}
          caption="Records execute would create, update and skip"
          columns=${[{ key: 'label', label: 'Kind' }, ...ACTIONS.map((action) => ({ key: action.key, label: action.label }))]}
          rows=${countRows}
        />
        ${
          preview.failures.count > 0 &&
          html`<p>
            ${preview.failures.count} rows would fail now (a taken MRN, say): execute reports them as
            warnings.
          </p>`
        }
        ${ACTIONS.filter((action) => preview.samples[action.key].length > 0).map(
          (action) =>
            html`<${Table}
              key=${action.key}
              caption=${`First rows ${action.label.toLowerCase()}`}
              columns=${SAMPLE_COLUMNS}
              rows=${preview.samples[action.key]}
              rowKey=${(step) => `${step.kind}-${step.row}`}
            />`,
        )}`
    }
  </section>`;
}
