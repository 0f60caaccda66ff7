/**
 * What execute would do now (POST /jobs/{id}/preview, which writes nothing): counts to create,
 * update and skip per kind, the practitioners the appointments would book with (matched or
 * created), and the first rows of each action with their before and after.
 */
import { useEffect, useState } from 'preact/hooks';
import { Banner, Button, ErrorBanner, html, Table } from '@ward/ui';
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

const quoted = (names) => names.map((name) => `"${name}"`).join(', ');
const appointmentsOf = (count) => `${count} appointment${count === 1 ? '' : 's'}`;

/**
 * Which practitioners the appointments would book with: existing ones their names match (case,
 * accents and punctuation aside), and those execute would create, named as the source names them.
 * Absent (null) for a caller who may not read appointments.
 */
const PRACTITIONERS = '/appointments/practitioners';
const MANAGE_PRACTITIONERS = 'appointments.practitioner.write';

/**
 * Books the appointments of a name the import would create a practitioner for with an existing
 * practitioner instead: makes the name an alias of theirs (kept, so later imports do the same),
 * then previews again.
 */
function MapName({ context, entry, practitioners, onMapped }) {
  const [choice, setChoice] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const id = `map-${entry.name.replace(/[^A-Za-z0-9]+/g, '-')}`;
  const map = async () => {
    if (choice === '') return;
    setBusy(true);
    setError(null);
    try {
      for (const name of entry.names) await context.api.post(`${PRACTITIONERS}/${choice}/aliases`, { name });
      await onMapped();
    } catch (caught) {
      setError(caught);
    }
    setBusy(false);
  };
  return html`<div class="import-map-name form-actions">
    <label for=${id}>Book ${entry.name} with</label>
    <select id=${id} value=${choice} onInput=${(event) => setChoice(event.currentTarget.value)}>
      <option value="">a new practitioner</option>
      ${practitioners.map((practitioner) => html`<option value=${String(practitioner.id)}>${practitioner.name}</option>`)}
    </select>
    <${Button} variant="secondary" busy=${busy} disabled=${choice === ''} onClick=${map}>Map<//>
    ${error && html`<${ErrorBanner} title=${`${entry.name} was not mapped`} error=${error} />`}
  </div>`;
}

function PractitionerNotice({ context, plan, onMapped }) {
  const [practitioners, setPractitioners] = useState([]);
  const mayMap = context.can(MANAGE_PRACTITIONERS);
  useEffect(() => {
    if (!mayMap) return;
    context.api.get(PRACTITIONERS).then(
      (page) => setPractitioners(page.items.filter((practitioner) => practitioner.active)),
      () => setPractitioners([]),
    );
  }, [plan]);
  if (plan === null || plan === undefined || plan.matched.length + plan.created.length === 0) return null;
  return html`<${Banner} kind="info" title="Practitioners">
    ${
      plan.created.length > 0 &&
      html`<p>
          Execute would create ${plan.created.length} practitioner${plan.created.length === 1 ? '' : 's'}:
        </p>
        <ul class="import-practitioners-created">
          ${plan.created.map(
            (entry) =>
              html`<li key=${entry.name}>
                ${entry.name}${entry.names.length > 1 ? ` (written ${quoted(entry.names)})` : ''}:
                ${appointmentsOf(entry.appointments)}
                ${
                  mayMap &&
                  practitioners.length > 0 &&
                  html`<${MapName}
                    context=${context}
                    entry=${entry}
                    practitioners=${practitioners}
                    onMapped=${onMapped}
                  />`
                }
              </li>`,
          )}
        </ul>
        <p>
          Each is named as the source names them; a source that names practitioners only by an id (Synthea's
          CSV PROVIDER column) gives practitioners named after that id. Rename them on the Practitioners page
          once imported, or book a name with a practitioner Ward has: the name is kept as their alias, so
          later imports book it with them too.
        </p>`
    }
    ${
      plan.matched.length > 0 &&
      html`<p>Appointments would book with these existing practitioners:</p>
        <ul class="import-practitioners-matched">
          ${plan.matched.map(
            (entry) =>
              html`<li key=${entry.practitioner.id}>
                ${quoted(entry.names)} → ${entry.practitioner.name}: ${appointmentsOf(entry.appointments)}
              </li>`,
          )}
        </ul>`
    }
    ${plan.untracked > 0 && html`<p>${appointmentsOf(plan.untracked)} name further practitioners, not listed here.</p>`}
  <//>`;
}

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
        <${PractitionerNotice} context=${context} plan=${preview.practitioners} onMapped=${load} />
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
