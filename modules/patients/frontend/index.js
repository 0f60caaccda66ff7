/**
 * The patients module's pages: plain ES modules, no build step. Preact, its hooks, htm and the
 * shell's components come from the import map, so this layer shares the shell's copies.
 * `/patients` searches and pages through the list, `/patients/new` creates a patient, and
 * `/patients/:id` shows one and edits it; the server's validation errors are shown at the field.
 * The patient page hosts three slots other layers fill, each given `{patient}`: `patient.actions`
 * (beside Edit), `patient.header` (under the title) and `patient.chart` (under the details).
 */
import { useEffect, useState } from 'preact/hooks';
import {
  Banner,
  Button,
  ButtonLink,
  EmptyState,
  ErrorBanner,
  Field,
  fieldErrors,
  html,
  Loading,
  missingFields,
  mount,
  PageHeader,
  personMessage,
  Pager,
  patientName,
  Slot,
  Table,
  translator,
  usePager,
} from '@ward/ui';
import messages from './messages.js';

/** This layer's words in the language in use (the same as `context.t`, for code outside a page). */
const t = translator(messages);

const API = '/patients/patients';
const PAGE_SIZE = 25;
const WRITE = 'patients.patient.write';

const SEXES = [
  // Read when drawn, so the label follows the language.
  {
    value: 'unknown',
    get label() {
      return t('sex.unknown');
    },
  },
  {
    value: 'female',
    get label() {
      return t('sex.female');
    },
  },
  {
    value: 'male',
    get label() {
      return t('sex.male');
    },
  },
  {
    value: 'other',
    get label() {
      return t('sex.other');
    },
  },
];

/** The fields a patient must have. */
const REQUIRED = ['mrn', 'familyName', 'givenName'];

function PatientList({ context }) {
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  /** Cursors of the pages before this one: "Previous page" goes back through them. */
  const pager = usePager();
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);

  useEffect(() => {
    const controller = new AbortController();
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (query !== '') params.set('q', query);
    if (pager.cursor !== null) params.set('cursor', pager.cursor);
    setError(null);
    context.api.get(`${API}?${params}`, { signal: controller.signal }).then(setPage, (caught) => {
      if (caught.name !== 'AbortError') setError(caught);
    });
    return () => controller.abort();
  }, [query, pager.cursor]);

  const search = (event) => {
    event.preventDefault();
    pager.reset();
    setPage(null);
    setQuery(typed.trim());
  };

  const columns = [
    { key: 'mrn', label: t('mrn') },
    {
      key: 'name',
      label: t('name'),
      render: (patient) => html`<a href=${`/patients/${patient.id}`}>${patientName(patient)}</a>`,
    },
    { key: 'birthDate', label: t('birthDate'), render: (patient) => patient.birthDate ?? '—' },
    {
      key: 'sex',
      label: t('sex'),
      render: (patient) => SEXES.find((sex) => sex.value === patient.sex)?.label ?? patient.sex,
    },
  ];

  return html`<${PageHeader}
      title=${t('list.title')}
      actions=${context.can(WRITE) && html`<${ButtonLink} href="/patients/new">${t('list.new')}<//>`}
    />
    <form class="search" role="search" onSubmit=${search}>
      <${Field}
        label=${t('list.search')}
        name="q"
        type="search"
        value=${typed}
        onInput=${setTyped}
        hint=${t('list.searchHint')}
      />
      <${Button} type="submit">${t('list.searchButton')}<//>
    </form>
    ${error && html`<${ErrorBanner} error=${error} />`}
    ${!error && page === null && html`<${Loading} label=${t('list.loading')} />`}
    ${
      !error && page !== null && page.items.length === 0 && pager.page === 1
        ? html`<${EmptyState} title=${query === '' ? t('list.empty') : t('list.noMatch', { query })}>
            ${query === '' && context.can(WRITE) && html`<p><a href="/patients/new">${t('list.addFirst')}</a>.</p>`}
          <//>`
        : !error &&
          page !== null &&
          html`<${Table}
              caption=${query === '' ? t('list.all') : t('list.matching', { query })}
              columns=${columns}
              rows=${page.items}
            />
            <${Pager} label=${t('list.pages')} pager=${pager} nextCursor=${page.nextCursor} />`
    }`;
}

/** Form values (strings) from a patient; '' for what it lacks. */
const formOf = (patient) => ({
  mrn: patient?.mrn ?? '',
  familyName: patient?.familyName ?? '',
  givenName: patient?.givenName ?? '',
  birthDate: patient?.birthDate ?? '',
  sex: patient?.sex ?? 'unknown',
  phone: patient?.phone ?? '',
  email: patient?.email ?? '',
});

/** The body to send: empty optional fields are null; on an edit, only what changed. */
function bodyOf(values, original) {
  const body = {};
  for (const [key, value] of Object.entries(values)) {
    const trimmed = key === 'mrn' ? value.trim() : value;
    const sent = trimmed === '' && !REQUIRED.includes(key) ? null : trimmed;
    if (original === null || sent !== (original[key] ?? null)) body[key] = sent;
  }
  return body;
}

/** The patient form; `onSave(body)` sends it, and a 422 naming a field shows at that field. */
function PatientForm({ initial, original, submitLabel, onSave, onCancel }) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState({});
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const set = (key) => (value) => setValues({ ...values, [key]: value });

  const focusFirst = (fields) => {
    const first = Object.keys(fields)[0];
    if (first !== undefined) document.getElementById(`field-${first.split('/')[1]}`)?.focus();
  };

  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    // Every required field left empty is said at once, before anything is sent.
    const missing = missingFields(values, REQUIRED);
    setErrors(missing);
    if (Object.keys(missing).length > 0) {
      focusFirst(missing);
      return;
    }
    setBusy(true);
    try {
      await onSave(bodyOf(values, original));
    } catch (caught) {
      const atField = fieldErrors(caught);
      // The one write that can clash is the MRN: another patient has it.
      const duplicate = caught.status === 409 ? { '/mrn': personMessage(caught, '/mrn').message } : {};
      const fields = { ...atField, ...duplicate };
      setErrors(fields);
      setError(caught);
      setBusy(false);
      focusFirst(fields);
    }
  };

  const field = (key, label, extra = {}) =>
    html`<${Field}
      label=${label}
      name=${key}
      value=${values[key]}
      onInput=${set(key)}
      error=${errors[`/${key}`]}
      ...${extra}
    />`;

  return html`<form class="form" onSubmit=${submit} novalidate>
    ${
      error &&
      html`<${ErrorBanner}
        title=${t('form.notSaved')}
        error=${error}
        field=${error.status === 409 ? '/mrn' : undefined}
      />`
    }
    <div class="form-grid">
      ${field('mrn', t('mrn'), { required: true, hint: t('form.mrnHint') })}
      ${field('familyName', t('familyName'), { required: true, autocomplete: 'off' })}
      ${field('givenName', t('givenName'), { required: true, autocomplete: 'off' })}
      ${field('birthDate', t('birthDate'), { type: 'date' })} ${field('sex', t('sex'), { options: SEXES })}
      ${field('phone', t('phone'), { type: 'tel' })} ${field('email', t('email'), { type: 'email' })}
    </div>
    <div class="form-actions">
      <${Button} type="submit" busy=${busy}>${submitLabel}<//>
      ${onCancel && html`<${Button} variant="secondary" onClick=${onCancel}>${t('form.cancel')}<//>`}
    </div>
  </form>`;
}

function NewPatient({ context }) {
  const save = async (body) => {
    const patient = await context.api.post(API, body);
    context.navigate(`/patients/${patient.id}?created=1`);
  };
  return html`<${PageHeader} title=${t('new.title')} description=${t('new.required')} />
    <${PatientForm}
      initial=${formOf(null)}
      original=${null}
      submitLabel=${t('new.submit')}
      onSave=${save}
    />`;
}

function PatientDetail({ context }) {
  const { id } = context.params;
  const [patient, setPatient] = useState(null);
  const [error, setError] = useState(null);
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState(context.query.created === '1' ? t('detail.created') : null);

  useEffect(() => {
    const controller = new AbortController();
    context.api
      .get(`${API}/${encodeURIComponent(id)}`, { signal: controller.signal })
      .then(setPatient, (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      });
    return () => controller.abort();
  }, [id]);

  if (error) return html`<${PageHeader} title=${t('detail.title')} /><${ErrorBanner} error=${error} />`;
  if (patient === null) return html`<${Loading} label=${t('detail.loading')} />`;

  const save = async (body) => {
    if (Object.keys(body).length === 0) {
      setEditing(false);
      return;
    }
    setPatient(await context.api.patch(`${API}/${patient.id}`, body));
    setEditing(false);
    setNotice(t('detail.saved'));
  };

  const rows = [
    [t('mrn'), patient.mrn],
    [t('familyName'), patient.familyName],
    [t('givenName'), patient.givenName],
    [t('birthDate'), patient.birthDate ?? '—'],
    [t('sex'), SEXES.find((sex) => sex.value === patient.sex)?.label ?? patient.sex],
    [t('phone'), patient.phone ?? '—'],
    [t('email'), patient.email ?? '—'],
  ];

  const slotProps = { patient };
  return html`<${PageHeader}
      title=${patientName(patient)}
      description=${t('detail.mrn', { mrn: patient.mrn })}
      actions=${
        !editing &&
        html`${
            context.can(WRITE) &&
            html`<${Button} variant="secondary" onClick=${() => (setNotice(null), setEditing(true))}
              >${t('detail.edit')}<//
            >`
          }<${Slot} name="patient.actions" context=${context} props=${slotProps} inline />`
      }
    />
    ${notice && html`<${Banner} kind="success"><p>${notice}</p><//>`}
    <${Slot} name="patient.header" context=${context} props=${slotProps} />
    ${
      editing
        ? html`<${PatientForm}
            initial=${formOf(patient)}
            original=${patient}
            submitLabel=${t('detail.save')}
            onSave=${save}
            onCancel=${() => setEditing(false)}
          />`
        : html`<dl class="details">
            ${rows.map(
              ([label, value]) =>
                html`<dt>${label}</dt>
                  <dd>${value}</dd>`,
            )}
          </dl>`
    }
    <${Slot} name="patient.chart" context=${context} props=${slotProps} />
    <p><a href="/patients">${t('detail.back')}</a></p>`;
}

export default /** @satisfies {import('@ward/ui').Layer} */ ({
  sdk: '^1.4.0',
  messages,
  routes: [
    { path: '/patients', render: mount(PatientList) },
    { path: '/patients/new', render: mount(NewPatient) },
    { path: '/patients/:id', render: mount(PatientDetail) },
  ],
});
