/**
 * The appointments module's pages: plain ES modules, no build step, sharing the shell's Preact,
 * htm and components through the import map. `/appointments` lists a day or a week, for every
 * practitioner or one, for every patient or one; `/appointments/new` books one (the patient is
 * found by search); `/appointments/:id` shows one and changes its status. The server's validation
 * errors are shown at the field. Deep links: `/appointments?date=2026-03-02&view=week&patient=12`.
 * The patient page shows the patient's next appointments in its `patient.chart` slot, and the
 * start page today's appointments in its `home.today` slot.
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
  patientName,
  PatientPicker,
  Table,
  translator,
} from '@ward/ui';
import messages from './messages.js';

/** This layer's words in the language in use (the same as `context.t`, for code outside a page). */
const t = translator(messages);

const API = '/appointments/appointments';
const PATIENTS = '/patients/patients';
const READ = 'appointments.appointment.read';
const WRITE = 'appointments.appointment.write';
/** How many of a patient's next appointments the patient page shows. */
const CHART_SIZE = 10;
/** The API's largest page: a day or a week of a clinic is read in a few requests at most. */
const PAGE_SIZE = 200;

/**
 * The seeded status codes (appointments_status) and their labels. The API has no route that lists
 * them; a code a later seed adds still shows, as its code.
 */
const STATUSES = [
  {
    value: 'booked',
    get label() {
      return t('status.booked');
    },
  },
  {
    value: 'arrived',
    get label() {
      return t('status.arrived');
    },
  },
  {
    value: 'fulfilled',
    get label() {
      return t('status.fulfilled');
    },
  },
  {
    value: 'cancelled',
    get label() {
      return t('status.cancelled');
    },
  },
  {
    value: 'noshow',
    get label() {
      return t('status.noshow');
    },
  },
];
const statusLabel = (code) => STATUSES.find((status) => status.value === code)?.label ?? code;

const VIEWS = [
  {
    value: 'day',
    get label() {
      return t('view.day');
    },
  },
  {
    value: 'week',
    get label() {
      return t('view.week');
    },
  },
];

/** Between links on one line: htm drops the spaces around a bare dot at a line break. */
const SEPARATOR = ' · ';

const pad = (number) => String(number).padStart(2, '0');
/** A local calendar date as YYYY-MM-DD, what `<input type="date">` holds. */
const isoDate = (date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
/** Local midnight of a YYYY-MM-DD date. */
const midnight = (day) => {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(year, month - 1, date);
};
const addDays = (date, days) => new Date(date.getFullYear(), date.getMonth(), date.getDate() + days);
const VALID_DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The instants `[from, to)` a day or a week (Monday first) around `day` covers, in local time. */
function rangeOf(day, view) {
  const start = midnight(day);
  if (view === 'day') return { from: start, to: addDays(start, 1) };
  const monday = addDays(start, -((start.getDay() + 6) % 7));
  return { from: monday, to: addDays(monday, 7) };
}

const dayLabel = (date) =>
  date.toLocaleDateString(locale(), { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
const timeLabel = (date) => date.toLocaleTimeString(locale(), { hour: '2-digit', minute: '2-digit' });
const shortDay = (date) =>
  date.toLocaleDateString(locale(), { weekday: 'short', day: 'numeric', month: 'short' });

/** Every appointment in the range, following `nextCursor` to the end. */
async function appointmentsIn(api, { from, to, patientId }, signal) {
  const items = [];
  let cursor = null;
  do {
    const params = new URLSearchParams({
      from: from.toISOString(),
      to: to.toISOString(),
      limit: String(PAGE_SIZE),
    });
    if (patientId !== null) params.set('patientId', String(patientId));
    if (cursor !== null) params.set('cursor', cursor);
    const page = await api.get(`${API}?${params}`, { signal });
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== null);
  return items;
}

/** The patients these appointments name, by id; one that cannot be read is left out. */
async function patientsOf(api, appointments, signal) {
  const ids = [...new Set(appointments.map((appointment) => appointment.patientId))];
  const found = await Promise.all(
    ids.map((id) =>
      api.get(`${PATIENTS}/${id}`, { signal }).catch((caught) => {
        if (caught.name === 'AbortError') throw caught;
        return null;
      }),
    ),
  );
  return new Map(found.filter(Boolean).map((patient) => [patient.id, patient]));
}

function AppointmentList({ context }) {
  const today = isoDate(new Date());
  const [day, setDay] = useState(VALID_DAY.test(context.query.date ?? '') ? context.query.date : today);
  const [view, setView] = useState(context.query.view === 'week' ? 'week' : 'day');
  const [practitioner, setPractitioner] = useState(context.query.practitioner ?? '');
  const [patientId, setPatientId] = useState(() => {
    const id = Number(context.query.patient);
    return Number.isInteger(id) && id > 0 ? id : null;
  });
  const [patient, setPatient] = useState(null);
  const [loaded, setLoaded] = useState(null);
  const [error, setError] = useState(null);
  const range = rangeOf(day, view);

  const choosePatient = (chosen) => {
    setPatient(chosen);
    setPatientId(chosen?.id ?? null);
  };

  // A deep link names the patient by id only: read them, to show whose appointments these are.
  useEffect(() => {
    if (patientId === null || patient?.id === patientId) return;
    context.api.get(`${PATIENTS}/${patientId}`).then(setPatient, setError);
  }, [patientId]);

  useEffect(() => {
    const controller = new AbortController();
    setLoaded(null);
    setError(null);
    appointmentsIn(context.api, { ...range, patientId }, controller.signal)
      .then(async (appointments) => ({
        appointments,
        patients: await patientsOf(context.api, appointments, controller.signal),
      }))
      .then(setLoaded, (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      });
    return () => controller.abort();
  }, [day, view, patientId]);

  const practitioners = loaded
    ? [...new Set(loaded.appointments.map((appointment) => appointment.practitionerName))]
        .filter((name) => name !== '')
        .sort((a, b) => a.localeCompare(b))
    : [];
  if (practitioner !== '' && !practitioners.includes(practitioner)) practitioners.push(practitioner);
  const shown = loaded
    ? loaded.appointments.filter(
        (appointment) => practitioner === '' || appointment.practitionerName === practitioner,
      )
    : [];

  const move = (direction) => setDay(isoDate(addDays(midnight(day), direction * (view === 'day' ? 1 : 7))));
  const period =
    view === 'day'
      ? dayLabel(range.from)
      : t('list.weekOf', { from: dayLabel(range.from), to: dayLabel(addDays(range.to, -1)) });
  const who = [
    practitioner === '' ? null : t('list.with', { practitioner }),
    patientId === null || patient === null ? null : t('list.for', { patient: patientName(patient) }),
  ]
    .filter(Boolean)
    .join(' ');
  const when = t(view === 'day' ? 'list.onDay' : 'list.inWeek', { day: dayLabel(range.from) });
  const caption = t('list.caption', { details: [who, when].filter(Boolean).join(' ') });

  const columns = [
    {
      key: 'when',
      label: view === 'day' ? t('time') : t('dayAndTime'),
      render: (appointment) => {
        const start = new Date(appointment.startAt);
        const text = `${view === 'week' ? `${shortDay(start)} ` : ''}${timeLabel(start)}–${timeLabel(
          new Date(appointment.endAt),
        )}`;
        return html`<a href=${`/appointments/${appointment.id}`}>${text}</a>`;
      },
    },
    {
      key: 'patient',
      label: t('patient'),
      render: (appointment) => {
        const found = loaded.patients.get(appointment.patientId);
        return found
          ? html`<a href=${`/patients/${found.id}`}>${patientName(found)}</a>`
          : t('patientNumber', { id: appointment.patientId });
      },
    },
    {
      key: 'practitionerName',
      label: t('practitioner'),
      render: (appointment) => appointment.practitionerName || '—',
    },
    { key: 'reason', label: t('reason'), render: (appointment) => appointment.reason ?? '—' },
    { key: 'status', label: t('status'), render: (appointment) => statusLabel(appointment.status) },
  ];

  return html`<${PageHeader}
      title=${t('title')}
      description=${period}
      actions=${context.can(WRITE) && html`<${ButtonLink} href="/appointments/new">${t('new')}<//>`}
    />
    <form class="form" aria-label=${t('list.which')} onSubmit=${(event) => event.preventDefault()}>
      <div class="form-grid">
        <${Field}
          label=${t('date')}
          name="date"
          type="date"
          value=${day}
          onInput=${(value) => VALID_DAY.test(value) && setDay(value)}
        />
        <${Field} label=${t('list.show')} name="view" value=${view} options=${VIEWS} onInput=${setView} />
        <${Field}
          label=${t('practitioner')}
          name="practitioner"
          value=${practitioner}
          onInput=${setPractitioner}
          options=${[
            { value: '', label: t('list.allPractitioners') },
            ...practitioners.map((name) => ({ value: name, label: name })),
          ]}
        />
      </div>
      <${PatientPicker}
        context=${context}
        label=${t('patient')}
        patient=${patientId === null ? null : patient}
        onChoose=${choosePatient}
      />
      <div class="form-actions">
        <${Button} variant="secondary" onClick=${() => move(-1)}>
          ${view === 'day' ? t('list.previousDay') : t('list.previousWeek')}
        <//>
        <${Button} variant="secondary" onClick=${() => setDay(today)}>${t('list.today')}<//>
        <${Button} variant="secondary" onClick=${() => move(1)}
          >${view === 'day' ? t('list.nextDay') : t('list.nextWeek')}<//
        >
        ${
          patientId !== null &&
          html`<${Button} variant="secondary" onClick=${() => choosePatient(null)}>All patients<//>`
        }
      </div>
    </form>
    ${error && html`<${ErrorBanner} error=${error} />`}
    ${!error && loaded === null && html`<${Loading} label=${t('loading')} />`}
    ${
      !error &&
      loaded !== null &&
      (shown.length === 0
        ? html`<${EmptyState}
            title=${t('list.empty', {
              details: [who, t(view === 'day' ? 'list.thisDay' : 'list.thisWeek')].filter(Boolean).join(' '),
            })}
          >
            ${context.can(WRITE) && html`<p><a href="/appointments/new">${t('book')}</a>.</p>`}
          <//>`
        : html`<${Table} caption=${caption} columns=${columns} rows=${shown} />`)
    }`;
}

/** `date` (YYYY-MM-DD) and `time` (HH:MM) in local time as an RFC 3339 instant; undefined if either is missing. */
const instantOf = (date, time) =>
  VALID_DAY.test(date) && /^\d{2}:\d{2}/.test(time) ? new Date(`${date}T${time}`).toISOString() : undefined;

function NewAppointment({ context }) {
  const [patient, setPatient] = useState(null);
  const [values, setValues] = useState({
    practitionerName: '',
    date: isoDate(new Date()),
    startAt: '',
    endAt: '',
    status: 'booked',
    reason: '',
  });
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
    setErrors({});
    setError(null);
    // Every required field left empty is said at once, before anything is sent; the server would
    // name only the first, and accepts an empty practitioner.
    const local = missingFields({ ...values, patientId: patient }, [
      'patientId',
      'practitionerName',
      'date',
      'startAt',
      'endAt',
    ]);
    if (local['/patientId'] !== undefined) local['/patientId'] = t('new.choosePatient');
    if (local['/date'] === undefined && !VALID_DAY.test(values.date)) local['/date'] = t('new.chooseDay');
    if (Object.keys(local).length > 0) {
      setErrors(local);
      focusFirst(local);
      return;
    }
    const body = {
      practitionerName: values.practitionerName.trim(),
      status: values.status,
      reason: values.reason.trim() === '' ? null : values.reason.trim(),
    };
    if (patient !== null) body.patientId = patient.id;
    const startAt = instantOf(values.date, values.startAt);
    const endAt = instantOf(values.date, values.endAt);
    if (startAt !== undefined) body.startAt = startAt;
    if (endAt !== undefined) body.endAt = endAt;
    setBusy(true);
    try {
      const appointment = await context.api.post(API, body);
      context.navigate(`/appointments/${appointment.id}?created=1`);
    } catch (caught) {
      const fields = fieldErrors(caught);
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

  return html`<${PageHeader} title=${t('new')} description=${t('new.required')} />
    <form class="form" onSubmit=${submit} novalidate>
      ${error && html`<${ErrorBanner} title=${t('new.notBooked')} error=${error} />`}
      <${PatientPicker}
        context=${context}
        label=${t('patient')}
        patient=${patient}
        onChoose=${setPatient}
        error=${errors['/patientId']}
        nextFocus="field-practitionerName"
        required
      />
      <div class="form-grid">
        ${field('practitionerName', t('practitioner'), { required: true, autocomplete: 'off' })}
        ${field('date', t('date'), { type: 'date', required: true })}
        ${field('startAt', t('startTime'), { type: 'time', required: true })}
        ${field('endAt', t('endTime'), { type: 'time', required: true })}
        ${field('status', t('status'), { options: STATUSES })}
        ${field('reason', t('reason'), { autocomplete: 'off' })}
      </div>
      <div class="form-actions">
        <${Button} type="submit" busy=${busy}>Book appointment<//>
        <${ButtonLink} variant="secondary" href="/appointments">Cancel<//>
      </div>
    </form>`;
}

function AppointmentDetail({ context }) {
  const { id } = context.params;
  const [appointment, setAppointment] = useState(null);
  const [patient, setPatient] = useState(null);
  const [status, setStatus] = useState('');
  const [error, setError] = useState(null);
  const [saveError, setSaveError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState(context.query.created === '1' ? t('detail.booked') : null);

  useEffect(() => {
    const controller = new AbortController();
    context.api
      .get(`${API}/${encodeURIComponent(id)}`, { signal: controller.signal })
      .then(async (found) => {
        setAppointment(found);
        setStatus(found.status);
        setPatient(await context.api.get(`${PATIENTS}/${found.patientId}`, { signal: controller.signal }));
      })
      .catch((caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      });
    return () => controller.abort();
  }, [id]);

  if (error) return html`<${PageHeader} title=${t('detail.title')} /><${ErrorBanner} error=${error} />`;
  if (appointment === null) return html`<${Loading} label=${t('detail.loading')} />`;

  const start = new Date(appointment.startAt);
  const end = new Date(appointment.endAt);
  const statuses = STATUSES.some((known) => known.value === appointment.status)
    ? STATUSES
    : [...STATUSES, { value: appointment.status, label: appointment.status }];

  const save = async (event) => {
    event.preventDefault();
    if (status === appointment.status) return;
    setBusy(true);
    setSaveError(null);
    setNotice(null);
    try {
      const saved = await context.api.patch(`${API}/${appointment.id}`, { status });
      setAppointment(saved);
      setNotice(t('detail.statusNow', { status: statusLabel(saved.status) }));
    } catch (caught) {
      setSaveError(caught);
      document.getElementById('field-status')?.focus();
    } finally {
      setBusy(false);
    }
  };

  const rows = [
    [
      t('patient'),
      patient
        ? html`<a href=${`/patients/${patient.id}`}>${patientName(patient)}</a>`
        : t('patientNumber', { id: appointment.patientId }),
    ],
    [t('practitioner'), appointment.practitionerName || '—'],
    [t('day'), dayLabel(start)],
    [t('time'), `${timeLabel(start)}–${timeLabel(end)}`],
    [t('reason'), appointment.reason ?? '—'],
    [t('status'), statusLabel(appointment.status)],
  ];
  const day = isoDate(start);

  return html`<${PageHeader}
      title=${t('detail.heading', { day: dayLabel(start), time: timeLabel(start) })}
      description=${patient ? `${patientName(patient)} with ${appointment.practitionerName || 'no practitioner'}` : ''}
    />
    ${notice && html`<${Banner} kind="success"><p>${notice}</p><//>`}
    <dl class="details">
      ${rows.map(
        ([label, value]) =>
          html`<dt>${label}</dt>
            <dd>${value}</dd>`,
      )}
    </dl>
    ${
      context.can(WRITE) &&
      html`<form class="form" aria-label=${t('detail.change')} onSubmit=${save} novalidate>
        ${saveError && html`<${ErrorBanner} title=${t('detail.notChanged')} error=${saveError} />`}
        <div class="search">
          <${Field}
            label=${t('detail.newStatus')}
            name="status"
            value=${status}
            onInput=${setStatus}
            options=${statuses}
            error=${fieldErrors(saveError)['/status']}
          />
          <${Button} type="submit" busy=${busy}>${t('detail.submit')}<//>
        </div>
      </form>`
    }
    <p>
      <a href=${`/appointments?date=${day}&patient=${appointment.patientId}`}>${t('detail.patientDay')}</a
      >${SEPARATOR}<a
        href=${`/appointments?date=${day}&practitioner=${encodeURIComponent(appointment.practitionerName)}`}
        >${t('detail.practitionerDay')}</a
      >${SEPARATOR}<a href="/appointments">${t('detail.back')}</a>
    </p>`;
}

/** The patient page's `patient.chart` part: this patient's next appointments, from today on. */
function ChartAppointments({ context, patient }) {
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const today = isoDate(new Date());

  useEffect(() => {
    const controller = new AbortController();
    const params = new URLSearchParams({
      patientId: String(patient.id),
      from: midnight(today).toISOString(),
      limit: String(CHART_SIZE),
    });
    setError(null);
    context.api.get(`${API}?${params}`, { signal: controller.signal }).then(setPage, (caught) => {
      if (caught.name !== 'AbortError') setError(caught);
    });
    return () => controller.abort();
  }, [patient.id]);

  const columns = [
    {
      key: 'when',
      label: t('dayAndTime'),
      render: (appointment) => {
        const start = new Date(appointment.startAt);
        return html`<a href=${`/appointments/${appointment.id}`}>${shortDay(start)} ${timeLabel(start)}</a>`;
      },
    },
    {
      key: 'practitionerName',
      label: t('practitioner'),
      render: (appointment) => appointment.practitionerName || '—',
    },
    { key: 'reason', label: t('reason'), render: (appointment) => appointment.reason ?? '—' },
    { key: 'status', label: t('status'), render: (appointment) => statusLabel(appointment.status) },
  ];

  return html`<section aria-labelledby="chart-appointments-title">
    <h2 id="chart-appointments-title">${t('title')}</h2>
    ${error && html`<${ErrorBanner} title=${t('chart.unreadable')} error=${error} />`}
    ${!error && page === null && html`<${Loading} label=${t('loading')} />`}
    ${
      !error &&
      page !== null &&
      (page.items.length === 0
        ? html`<${EmptyState} title=${t('chart.empty')} />`
        : html`<${Table}
            caption=${t('chart.caption', { patient: patientName(patient) })}
            columns=${columns}
            rows=${page.items}
          />`)
    }
    <p>
      <a href=${`/appointments?date=${today}&view=week&patient=${patient.id}`}>${t('chart.week')}</a>${
        context.can(WRITE) ? html`${SEPARATOR}<a href="/appointments/new">${t('book')}</a>` : ''
      }
    </p>
  </section>`;
}

/** The start page's `home.today` part: today's appointments, for every patient and practitioner. */
function TodayAppointments({ context }) {
  const [loaded, setLoaded] = useState(null);
  const [error, setError] = useState(null);
  const today = isoDate(new Date());

  useEffect(() => {
    const controller = new AbortController();
    appointmentsIn(context.api, { ...rangeOf(today, 'day'), patientId: null }, controller.signal)
      .then(async (appointments) => ({
        appointments,
        patients: await patientsOf(context.api, appointments, controller.signal),
      }))
      .then(setLoaded, (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      });
    return () => controller.abort();
  }, [today]);

  const columns = [
    {
      key: 'when',
      label: t('time'),
      render: (appointment) =>
        html`<a href=${`/appointments/${appointment.id}`}>${timeLabel(new Date(appointment.startAt))}</a>`,
    },
    {
      key: 'patient',
      label: t('patient'),
      render: (appointment) => {
        const found = loaded.patients.get(appointment.patientId);
        return found ? patientName(found) : t('patientNumber', { id: appointment.patientId });
      },
    },
    {
      key: 'practitionerName',
      label: t('practitioner'),
      render: (appointment) => appointment.practitionerName || '—',
    },
    { key: 'status', label: t('status'), render: (appointment) => statusLabel(appointment.status) },
  ];

  return html`<section aria-labelledby="today-appointments-title">
    <h2 id="today-appointments-title">${t('today.title')}</h2>
    ${error && html`<${ErrorBanner} title=${t('today.unreadable')} error=${error} />`}
    ${!error && loaded === null && html`<${Loading} label=${t('today.loading')} />`}
    ${
      !error &&
      loaded !== null &&
      (loaded.appointments.length === 0
        ? html`<p>${t('today.empty')}</p>`
        : html`<${Table}
            caption=${t('today.caption', { day: dayLabel(midnight(today)) })}
            columns=${columns}
            rows=${loaded.appointments}
          />`)
    }
    <p><a href=${`/appointments?date=${today}`}>${t('today.open')}</a></p>
  </section>`;
}

export default /** @satisfies {import('@ward/ui').Layer} */ ({
  sdk: '^1.4.0',
  messages,
  routes: [
    { path: '/appointments', render: mount(AppointmentList) },
    { path: '/appointments/new', render: mount(NewAppointment) },
    { path: '/appointments/:id', render: mount(AppointmentDetail) },
  ],
  extensions: [
    { slot: 'patient.chart', component: ChartAppointments, permission: READ, order: 10 },
    { slot: 'home.today', component: TodayAppointments, permission: READ },
  ],
});
