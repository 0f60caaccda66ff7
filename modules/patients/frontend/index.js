/**
 * The patients module's pages: plain ES modules, no build step. Preact, its hooks, htm and the
 * shell's components come from the import map, so this layer shares the shell's copies.
 * `/patients` searches as you type (the search is in the URL, `?q=`), `/patients/new` registers a
 * patient (warning of a probable duplicate; Ward may assign the MRN), and `/patients/:id` is the
 * patient's chart: demographics, contact and address, edited at `?edit=1`. The chart hosts three
 * slots other layers fill, each given `{patient}`: `patient.actions` (beside Edit),
 * `patient.header` (under the title) and `patient.chart` (under the details).
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
  locale,
  missingFields,
  mount,
  PageHeader,
  personMessage,
  Pager,
  patientLabel,
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

/** How long typing pauses before the list searches: one request per pause, not per key. */
const SEARCH_DELAY_MS = 250;

/**
 * Puts the search in the address bar without drawing the page again (the shell's `navigate` would,
 * and take the focus from the search box): Back and reload then come back to the same search.
 */
function keepInUrl(query) {
  const url = query === '' ? '/patients' : `/patients?${new URLSearchParams({ q: query })}`;
  if (`${location.pathname}${location.search}` !== url) history.replaceState(history.state, '', url);
}

function PatientList({ context }) {
  const initial = context.query.q ?? '';
  const [typed, setTyped] = useState(initial);
  const [query, setQuery] = useState(initial.trim());
  /** Cursors of the pages before this one: "Previous page" goes back through them. */
  const pager = usePager();
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);

  // Search once typing pauses; the page shown stays until the next one arrives, so it does not flicker.
  useEffect(() => {
    const wanted = typed.trim();
    if (wanted === query) return undefined;
    const timer = setTimeout(() => {
      pager.reset();
      setQuery(wanted);
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [typed]);

  useEffect(() => {
    keepInUrl(query);
    const controller = new AbortController();
    const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (query !== '') params.set('q', query);
    if (pager.cursor !== null) params.set('cursor', pager.cursor);
    setError(null);
    context.api.get(`${API}?${params}`, { signal: controller.signal }).then(
      (found) => setPage({ query, ...found }),
      (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      },
    );
    return () => controller.abort();
  }, [query, pager.cursor]);

  /** Enter searches at once. */
  const search = (event) => {
    event.preventDefault();
    pager.reset();
    setQuery(typed.trim());
  };

  const columns = [
    { key: 'mrn', label: t('mrn') },
    {
      key: 'name',
      label: t('name'),
      render: (patient) => html`<a href=${`/patients/${patient.id}`}>${patientName(patient)}</a>`,
    },
    { key: 'birthDate', label: t('birthDate'), render: (patient) => birthDateLabel(patient.birthDate) },
    { key: 'phone', label: t('phone'), render: (patient) => patient.phone ?? '—' },
    {
      key: 'sex',
      label: t('sex'),
      render: (patient) => SEXES.find((sex) => sex.value === patient.sex)?.label ?? patient.sex,
    },
  ];

  const shown = page?.query ?? query;
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
        autocomplete="off"
        hint=${t('list.searchHint')}
      />
      <${Button} type="submit">${t('list.searchButton')}<//>
    </form>
    ${error && html`<${ErrorBanner} error=${error} />`}
    ${!error && page === null && html`<${Loading} label=${t('list.loading')} />`}
    ${
      !error && page !== null && page.items.length === 0 && pager.page === 1
        ? html`<${EmptyState} title=${shown === '' ? t('list.empty') : t('list.noMatch', { query: shown })}>
            ${shown === '' && context.can(WRITE) && html`<p><a href="/patients/new">${t('list.addFirst')}</a>.</p>`}
          <//>`
        : !error &&
          page !== null &&
          html`<${Table}
              caption=${shown === '' ? t('list.all') : t('list.matching', { query: shown })}
              columns=${columns}
              rows=${page.items}
            />
            <${Pager} label=${t('list.pages')} pager=${pager} nextCursor=${page.nextCursor} />`
    }`;
}

const ADDRESS_FIELDS = ['line1', 'line2', 'city', 'state', 'postalCode', 'country'];

/** Form values (strings) from a patient; '' for what it lacks. */
const formOf = (patient) => ({
  mrn: patient?.mrn ?? '',
  familyName: patient?.familyName ?? '',
  givenName: patient?.givenName ?? '',
  birthDate: patient?.birthDate ?? '',
  sex: patient?.sex ?? 'unknown',
  phone: patient?.phone ?? '',
  email: patient?.email ?? '',
  line1: patient?.address?.line?.[0] ?? '',
  line2: patient?.address?.line?.[1] ?? '',
  city: patient?.address?.city ?? '',
  state: patient?.address?.state ?? '',
  postalCode: patient?.address?.postalCode ?? '',
  country: patient?.address?.country ?? '',
});

/** The JSON pointer the server names a form field by: `/city` is `/address/city`, `line2` `/address/line/1`. */
function pointerOf(key) {
  if (key === 'line1' || key === 'line2') return `/address/line/${key === 'line1' ? 0 : 1}`;
  return ADDRESS_FIELDS.includes(key) ? `/address/${key}` : `/${key}`;
}

/** The address the form holds, without its empty parts; null when every part is empty. */
function addressOf(values) {
  const line = [values.line1, values.line2].map((part) => part.trim()).filter((part) => part !== '');
  const address = {};
  if (line.length > 0) address.line = line;
  for (const key of ['city', 'state', 'postalCode', 'country'])
    if (values[key].trim() !== '') address[key] = values[key].trim();
  return Object.keys(address).length === 0 ? null : address;
}

/** The body to send: empty optional fields are null; on an edit, only what changed. */
function bodyOf(values, original, assignMrn) {
  const body = {};
  for (const [key, value] of Object.entries(values)) {
    if (ADDRESS_FIELDS.includes(key) || (key === 'mrn' && assignMrn)) continue;
    const trimmed = key === 'mrn' ? value.trim() : value;
    const sent = trimmed === '' && !REQUIRED.includes(key) ? null : trimmed;
    if (original === null || sent !== (original[key] ?? null)) body[key] = sent;
  }
  const address = addressOf(values);
  if (original === null || JSON.stringify(address) !== JSON.stringify(original.address ?? null))
    body.address = address;
  return body;
}

/** The warning of a probable duplicate: the patients it may be, and "Register anyway". */
function DuplicateWarning({ duplicates, busy, onConfirm }) {
  return html`<${Banner}
    kind="warning"
    title=${t('duplicate.title')}
    action=${html`<${Button} variant="secondary" busy=${busy} onClick=${onConfirm}>${t('duplicate.confirm')}<//>`}
  >
    <p>${t('duplicate.intro')}</p>
    <ul>
      ${duplicates.map(
        (patient) =>
          html`<li key=${patient.id}>
            <a href=${`/patients/${patient.id}`}>${patientLabel(patient)}</a
            >${patient.birthDate ? t('duplicate.born', { date: birthDateLabel(patient.birthDate) }) : ''}
          </li>`,
      )}
    </ul>
    <p class="banner-hint">${t('duplicate.hint')}</p>
  <//>`;
}

/**
 * The patient form; `onSave(body, {confirmDuplicate})` sends it, and a 422 naming a field shows at
 * that field. `offerAssign`: the MRN may be left to Ward (a new patient).
 */
function PatientForm({ initial, original, submitLabel, onSave, onCancel, offerAssign = false }) {
  const [values, setValues] = useState(initial);
  const [assignMrn, setAssignMrn] = useState(offerAssign);
  const [errors, setErrors] = useState({});
  const [error, setError] = useState(null);
  const [duplicates, setDuplicates] = useState(null);
  const [busy, setBusy] = useState(false);
  const set = (key) => (value) => {
    setValues({ ...values, [key]: value });
    // A changed name or birth date may be another person: the warning no longer applies.
    if (['familyName', 'givenName', 'birthDate'].includes(key)) setDuplicates(null);
  };
  const required = assignMrn ? REQUIRED.filter((key) => key !== 'mrn') : REQUIRED;

  const focusFirst = (fields) => {
    const first = Object.keys(fields)[0];
    const key =
      first === undefined ? undefined : Object.keys(values).find((name) => pointerOf(name) === first);
    if (key !== undefined) document.getElementById(`field-${key}`)?.focus();
  };

  const save = async (confirmDuplicate) => {
    setError(null);
    // Every required field left empty is said at once, before anything is sent.
    const missing = missingFields(values, required);
    setErrors(missing);
    if (Object.keys(missing).length > 0) {
      focusFirst(missing);
      return;
    }
    setBusy(true);
    try {
      await onSave(bodyOf(values, original, assignMrn), { confirmDuplicate });
    } catch (caught) {
      setBusy(false);
      if (caught.code === 'probable_duplicate') {
        setErrors({});
        setDuplicates(caught.details.duplicates ?? []);
        return;
      }
      setDuplicates(null);
      const atField = fieldErrors(caught);
      // The one write that can clash is the MRN: another patient has it.
      const duplicate = caught.status === 409 ? { '/mrn': personMessage(caught, '/mrn').message } : {};
      const fields = { ...atField, ...duplicate };
      setErrors(fields);
      setError(caught);
      focusFirst(fields);
    }
  };

  const field = (key, label, extra = {}) =>
    html`<${Field}
      label=${label}
      name=${key}
      value=${values[key]}
      onInput=${set(key)}
      error=${errors[pointerOf(key)]}
      ...${extra}
    />`;

  return html`<form class="form" onSubmit=${(event) => (event.preventDefault(), save(false))} novalidate>
    ${
      error &&
      html`<${ErrorBanner}
        title=${t('form.notSaved')}
        error=${error}
        field=${error.status === 409 ? '/mrn' : undefined}
      />`
    }
    ${duplicates && html`<${DuplicateWarning} duplicates=${duplicates} busy=${busy} onConfirm=${() => save(true)} />`}
    <div class="form-grid">
      <div class="field">
        ${
          offerAssign &&
          html`<div class="field-check">
            <input
              type="checkbox"
              id="field-assignMrn"
              checked=${assignMrn}
              onChange=${(event) => setAssignMrn(event.currentTarget.checked)}
            />
            <label for="field-assignMrn">${t('form.assignMrn')}</label>
          </div>`
        }
        ${!assignMrn && field('mrn', t('mrn'), { required: true, hint: t('form.mrnHint') })}
      </div>
      ${field('familyName', t('familyName'), { required: true, autocomplete: 'off' })}
      ${field('givenName', t('givenName'), { required: true, autocomplete: 'off' })}
      ${field('birthDate', t('birthDate'), { type: 'date' })} ${field('sex', t('sex'), { options: SEXES })}
    </div>
    <fieldset class="form-grid">
      <legend>${t('contact')}</legend>
      ${field('phone', t('phone'), { type: 'tel', autocomplete: 'off' })}
      ${field('email', t('email'), { type: 'email', autocomplete: 'off' })}
    </fieldset>
    <fieldset class="form-grid">
      <legend>${t('address')}</legend>
      ${field('line1', t('address.line1'), { autocomplete: 'off' })}
      ${field('line2', t('address.line2'), { autocomplete: 'off' })}
      ${field('city', t('address.city'), { autocomplete: 'off' })}
      ${field('state', t('address.state'), { autocomplete: 'off' })}
      ${field('postalCode', t('address.postalCode'), { autocomplete: 'off' })}
      ${field('country', t('address.country'), { autocomplete: 'off' })}
    </fieldset>
    <div class="form-actions">
      <${Button} type="submit" busy=${busy}>${submitLabel}<//>
      ${onCancel && html`<${Button} variant="secondary" onClick=${onCancel}>${t('form.cancel')}<//>`}
    </div>
  </form>`;
}

function NewPatient({ context }) {
  const save = async (body, { confirmDuplicate }) => {
    const patient = await context.api.post(confirmDuplicate ? `${API}?confirm=duplicate` : API, body);
    context.navigate(`/patients/${patient.id}?created=1`);
  };
  return html`<${PageHeader} title=${t('new.title')} description=${t('new.required')} />
    <${PatientForm}
      initial=${formOf(null)}
      original=${null}
      submitLabel=${t('new.submit')}
      onSave=${save}
      offerAssign
    />`;
}

/** The address as its lines, in the order an envelope has them. */
function addressLines(address) {
  if (!address) return [];
  const town = [address.postalCode, address.city].filter(Boolean).join(' ');
  return [...(address.line ?? []), town, address.state, address.country].filter(Boolean);
}

/**
 * A birth date (YYYY-MM-DD, a calendar day with no time zone) as the user's language writes one:
 * 07.03.1984 in German, Mar 7, 1984 in English.
 */
function birthDateLabel(value) {
  if (!value) return '—';
  const [year, month, day] = value.split('-').map(Number);
  return new Date(year, month - 1, day).toLocaleDateString(locale(), { dateStyle: 'medium' });
}

/** The chart's summary: who the patient is, and how to reach them. */
function Summary({ patient }) {
  const lines = addressLines(patient.address);
  const demographics = [
    [t('mrn'), patient.mrn],
    [t('familyName'), patient.familyName],
    [t('givenName'), patient.givenName],
    [t('birthDate'), birthDateLabel(patient.birthDate)],
    [t('sex'), SEXES.find((sex) => sex.value === patient.sex)?.label ?? patient.sex],
  ];
  const contact = [
    [
      t('phone'),
      patient.phone
        ? html`<a href=${`tel:${patient.phone.replace(/[^\d+]/g, '')}`}>${patient.phone}</a>`
        : '—',
    ],
    [t('email'), patient.email ? html`<a href=${`mailto:${patient.email}`}>${patient.email}</a>` : '—'],
    [t('address'), lines.length > 0 ? html`<address class="address">${lines.join('\n')}</address>` : '—'],
  ];
  const list = (rows) =>
    html`<dl class="details">
      ${rows.map(
        ([label, value]) =>
          html`<dt>${label}</dt>
            <dd>${value}</dd>`,
      )}
    </dl>`;
  return html`<div class="chart-summary">
    <section aria-labelledby="chart-demographics-title">
      <h2 id="chart-demographics-title">${t('demographics')}</h2>
      ${list(demographics)}
    </section>
    <section aria-labelledby="chart-contact-title">
      <h2 id="chart-contact-title">${t('contact')}</h2>
      ${list(contact)}
    </section>
  </div>`;
}

/** The notices `?created=1` and `?saved=1` show, by their message key. */
const NOTICES = { created: 'detail.created', saved: 'detail.saved' };

function PatientDetail({ context }) {
  const { id } = context.params;
  const [patient, setPatient] = useState(null);
  const [error, setError] = useState(null);
  // Edit mode is in the URL, so Back and reload come back to it.
  const editing = context.query.edit === '1' && context.can(WRITE);
  const notice = Object.keys(NOTICES).find((key) => context.query[key] === '1');

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

  const chart = `/patients/${patient.id}`;
  const save = async (body) => {
    if (Object.keys(body).length > 0) await context.api.patch(`${API}/${patient.id}`, body);
    // Replaces the edit entry: Back from the saved chart goes where the user was before editing.
    context.navigate(Object.keys(body).length > 0 ? `${chart}?saved=1` : chart, true);
  };

  const slotProps = { patient };
  return html`<${PageHeader}
      title=${patientName(patient)}
      description=${editing ? t('detail.editingMrn', { mrn: patient.mrn }) : t('detail.mrn', { mrn: patient.mrn })}
      actions=${
        !editing &&
        html`${
            context.can(WRITE) &&
            html`<${ButtonLink} variant="secondary" href=${`${chart}?edit=1`}>${t('detail.edit')}<//>`
          }<${Button} variant="secondary" onClick=${() => window.print()}>${t('detail.print')}<//
          ><${Slot} name="patient.actions" context=${context} props=${slotProps} inline />`
      }
    />
    ${notice && !editing && html`<${Banner} kind="success"><p>${t(NOTICES[notice])}</p><//>`}
    <${Slot} name="patient.header" context=${context} props=${slotProps} />
    ${
      editing
        ? html`<${PatientForm}
            initial=${formOf(patient)}
            original=${patient}
            submitLabel=${t('detail.save')}
            onSave=${save}
            onCancel=${() => context.navigate(chart)}
          />`
        : html`<${Summary} patient=${patient} />`
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
