/**
 * What execute would do now (POST /jobs/{id}/preview, which writes nothing): counts to create,
 * update and skip per kind, the practitioners the appointments would book with (matched or
 * created), and the first rows of each action with their before and after.
 */
import { useEffect, useState } from 'preact/hooks';
import { Banner, Button, ErrorBanner, html, Table } from '@ward/ui';
import { JOBS, KINDS, t } from './shared.js';

const SAMPLE = 5;

/** The actions execute takes; labels and captions are read when drawn, so they follow the language. */
const ACTIONS = ['create', 'update', 'skip'].map((key) => ({
  key,
  get label() {
    return t(`preview.action.${key}`);
  },
  get firstRows() {
    return t(`preview.first.${key}`);
  },
}));

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
  if (values === null) return html`<span>${t('preview.new')}</span>`;
  return html`<ul style="margin: 0; padding-left: 1rem">
    ${Object.entries(values)
      .filter(([, value]) => value !== null && value !== undefined && value !== '')
      .map(
        ([key, value]) =>
          html`<li key=${key}>
            ${changed?.has(key) ? html`<strong>${t('preview.changedValue', { field: key, value: text(value) })}</strong>` : t('preview.value', { field: key, value: text(value) })}
          </li>`,
      )}
  </ul>`;
}

/** The sample tables' columns, in the language in use when drawn. */
const sampleColumns = () => [
  { key: 'row', label: t('preview.row') },
  { key: 'kind', label: t('preview.kind'), render: (step) => t('preview.recordKind', { kind: step.kind }) },
  {
    key: 'sourceId',
    label: t('preview.sourceId'),
    // A patient Ward already holds opens its chart: what is about to change, in full.
    render: (step) =>
      step.kind === 'patient' && step.wardId !== null && step.wardId !== undefined
        ? html`<a href=${`/patients/${step.wardId}`}>${step.sourceId}</a>`
        : step.sourceId,
  },
  {
    key: 'before',
    label: t('preview.before'),
    render: (step) =>
      step.hidden
        ? html`<span>${t('preview.hidden', { permission: step.hidden })}</span>`
        : html`<${Values} values=${step.before} />`,
  },
  {
    key: 'after',
    label: t('preview.after'),
    render: (step) =>
      step.hidden
        ? html`<span
            >${step.changes.length === 0 ? t('preview.noChange') : t('preview.changes', { fields: step.changes.map((change) => change.field).join(', ') })}</span
          >`
        : html`<${Values}
            values=${step.after}
            changed=${new Set(step.changes.map((change) => change.field))}
          />`,
  },
];

const quoted = (names) => names.map((name) => `"${name}"`).join(', ');
const appointmentsOf = (count) => t('preview.appointments', { count });

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
    <label for=${id}>${t('preview.mapLabel', { name: entry.name })}</label>
    <select id=${id} value=${choice} onInput=${(event) => setChoice(event.currentTarget.value)}>
      <option value="">${t('preview.mapNew')}</option>
      ${practitioners.map((practitioner) => html`<option value=${String(practitioner.id)}>${practitioner.name}</option>`)}
    </select>
    <${Button} variant="secondary" busy=${busy} disabled=${choice === ''} onClick=${map}
      >${t('preview.map')}<//
    >
    ${error && html`<${ErrorBanner} title=${t('preview.mapFailed', { name: entry.name })} error=${error} />`}
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
  return html`<${Banner} kind="info" title=${t('preview.practitioners')}>
    ${
      plan.created.length > 0 &&
      html`<p>${t('preview.wouldCreate', { count: plan.created.length })}</p>
        <ul class="import-practitioners-created">
          ${plan.created.map(
            (entry) =>
              html`<li key=${entry.name}>
                ${entry.names.length > 1 ? t('preview.createdWritten', { name: entry.name, names: quoted(entry.names), appointments: appointmentsOf(entry.appointments) }) : t('preview.created', { name: entry.name, appointments: appointmentsOf(entry.appointments) })}
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
        <p>${t('preview.createdHint')}</p>`
    }
    ${
      plan.matched.length > 0 &&
      html`<p>${t('preview.matched')}</p>
        <ul class="import-practitioners-matched">
          ${plan.matched.map(
            (entry) =>
              html`<li key=${entry.practitioner.id}>
                ${t('preview.matchedEntry', { names: quoted(entry.names), practitioner: entry.practitioner.name, appointments: appointmentsOf(entry.appointments) })}
              </li>`,
          )}
        </ul>`
    }
    ${plan.untracked > 0 && html`<p>${t('preview.untracked', { count: plan.untracked })}</p>`}
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
    { id: 'total', label: t('preview.total'), ...preview.totals },
  ];

  return html`<section aria-labelledby="preview-title">
    <h2 id="preview-title">${t('preview.title')}</h2>
    <p>${t('preview.description')}</p>
    <${Button} variant="secondary" busy=${busy} onClick=${load}
      >${preview ? t('preview.again') : t('preview.title')}<//
    >
    ${error && html`<${ErrorBanner} title=${t('preview.failed')} error=${error} />`}
    ${
      preview &&
      html`<${Table}
          caption=${t('preview.countsCaption')}
          columns=${[{ key: 'label', label: t('preview.kind') }, ...ACTIONS.map((action) => ({ key: action.key, label: action.label }))]}
          rows=${countRows}
        />
        <${PractitionerNotice} context=${context} plan=${preview.practitioners} onMapped=${load} />
        ${
          preview.failures.count > 0 &&
          html`<p>${t('preview.failures', { count: preview.failures.count })}</p>`
        }
        ${ACTIONS.filter((action) => preview.samples[action.key].length > 0).map(
          (action) =>
            html`<${Table}
              key=${action.key}
              caption=${action.firstRows}
              columns=${sampleColumns()}
              rows=${preview.samples[action.key]}
              rowKey=${(step) => `${step.kind}-${step.row}`}
            />`,
        )}`
    }
  </section>`;
}
