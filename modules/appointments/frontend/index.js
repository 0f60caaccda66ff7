/**
 * The appointments module's pages: plain ES modules, no build step, sharing the shell's Preact,
 * htm and components through the import map. `/appointments` is a grid of a day (a column per
 * practitioner, a row per half hour) or a week (a column per day), for every practitioner or one,
 * for every patient or one; what is shown is kept in the address, so Back and reload return to it:
 * `/appointments?date=2026-03-02&view=week&practitioner=3&patient=12`. `/appointments/new` books
 * one (the patient found by search, the practitioner chosen from the list); `/appointments/:id`
 * shows one, reschedules it, cancels it with a reason, marks a no-show or changes its status. A
 * practitioner busy at that time is said at once; holders of appointments.appointment.overbook
 * may book anyway. The patient page shows the patient's next appointments in its `patient.chart`
 * slot, and the start page today's appointments (the signed-in practitioner's, or the clinic's)
 * in its `home.today` slot. The layer's style sheet (appointments.css) lays the grid out as a list
 * on small screens and prints the day as a list. `/appointments/practitioners` (practitioners.js)
 * manages the practitioners; new bookings offer only the active ones.
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
import { PractitionersPage } from './practitioners.js';

const API = '/appointments/appointments';
const PRACTITIONERS = '/appointments/practitioners';
const PATIENTS = '/patients/patients';
const READ = 'appointments.appointment.read';
const WRITE = 'appointments.appointment.write';
const OVERBOOK = 'appointments.appointment.overbook';

// The layer's own style sheet, from its folder (the CSP allows styles from Ward's origin).
if (!document.querySelector('link[data-layer="appointments"]')) {
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = new URL('./appointments.css', import.meta.url).href;
  link.dataset.layer = 'appointments';
  document.head.append(link);
}
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

/** The practitioners, by name; an error leaves the list empty and is reported by `error`. */
function usePractitioners(context) {
  const [practitioners, setPractitioners] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    const controller = new AbortController();
    context.api.get(PRACTITIONERS, { signal: controller.signal }).then(
      (page) => setPractitioners(page.items),
      (caught) => {
        if (caught.name !== 'AbortError') setError(caught);
      },
    );
    return () => controller.abort();
  }, []);
  return { practitioners: practitioners ?? [], loaded: practitioners !== null, error };
}

/** A practitioner id from the address, or '' for every practitioner. */
const idFrom = (text) => (/^[1-9]\d*$/.test(text ?? '') ? text : '');

/** Minutes since local midnight. */
const minutesOf = (date) => date.getHours() * 60 + date.getMinutes();
/** A grid row is half an hour. */
const SLOT = 30;
/** The hours the grid always shows: a day from 08:00 to 18:00, more when appointments lie outside. */
const DAY_START = 8 * 60;
const DAY_END = 18 * 60;

/** The half hours, as minutes since midnight, that cover the working day and these appointments. */
function slotsFor(appointments) {
  let first = DAY_START;
  let last = DAY_END;
  for (const appointment of appointments) {
    const start = new Date(appointment.startAt);
    const end = new Date(appointment.endAt);
    first = Math.min(first, minutesOf(start));
    last = Math.max(last, isoDate(end) === isoDate(start) ? minutesOf(end) : 24 * 60);
  }
  const slots = [];
  for (let minute = first - (first % SLOT); minute < last; minute += SLOT) slots.push(minute);
  return slots;
}
const slotLabel = (minute) => timeLabel(new Date(2000, 0, 1, Math.floor(minute / 60), minute % 60));

/**
 * The grid: a row per half hour, a column per `columns` entry (`key`, `label`, and `holds`, which
 * says whether an appointment belongs in the column); each appointment in the row where it starts.
 * On small screens the stylesheet shows it as a list of the half hours that have appointments.
 */
function Grid({ caption, columns, appointments, patients, showPractitioner }) {
  const slots = slotsFor(appointments);
  const starting = (column, minute) =>
    appointments.filter((appointment) => {
      const start = minutesOf(new Date(appointment.startAt));
      return column.holds(appointment) && start >= minute && start < minute + SLOT;
    });
  return html`<div class="table-wrap appointments-grid-wrap">
    <table class="table appointments-grid">
      <caption>
        ${caption}
      </caption>
      <thead>
        <tr>
          <th scope="col">${t('time')}</th>
          ${columns.map((column) => html`<th scope="col" key=${column.key}>${column.label}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${slots.map((minute) => {
          const cells = columns.map((column) => starting(column, minute));
          const empty = cells.every((cell) => cell.length === 0);
          return html`<tr key=${minute} class=${empty ? 'slot-free' : 'slot-taken'}>
            <th scope="row">${slotLabel(minute)}</th>
            ${columns.map(
              (column, index) =>
                html`<td
                  key=${column.key}
                  data-label=${column.label}
                  class=${cells[index].length === 0 ? 'cell-free' : ''}
                >
                  ${cells[index].map(
                    (appointment) =>
                      html`<${GridEntry}
                        key=${appointment.id}
                        appointment=${appointment}
                        patient=${patients.get(appointment.patientId)}
                        showPractitioner=${showPractitioner}
                      />`,
                  )}
                </td>`,
            )}
          </tr>`;
        })}
      </tbody>
    </table>
  </div>`;
}

function GridEntry({ appointment, patient, showPractitioner }) {
  const start = new Date(appointment.startAt);
  const released = appointment.status === 'cancelled' || appointment.status === 'noshow';
  return html`<div class=${`appointment-entry status-${appointment.status}`}>
    <a href=${`/appointments/${appointment.id}`}
      >${timeLabel(start)}–${timeLabel(new Date(appointment.endAt))}</a
    >
    ${' '}${patient ? html`<a href=${`/patients/${patient.id}`}>${patientName(patient)}</a>` : t('patientNumber', { id: appointment.patientId })}
    ${showPractitioner && html`<span class="entry-detail">${appointment.practitionerName || t('list.noPractitioner')}</span>`}
    ${appointment.reason && html`<span class="entry-detail">${appointment.reason}</span>`}
    ${
      (appointment.status !== 'booked' || appointment.overbooked) &&
      html`<span class="entry-detail">
        ${released ? html`<strong>${statusLabel(appointment.status)}</strong>` : statusLabel(appointment.status)}${
          appointment.overbooked ? ` · ${t('overbooked')}` : ''
        }
      </span>`
    }
  </div>`;
}

/** The day as a list, for paper: what the stylesheet prints instead of the grid. */
function PrintList({ title, appointments, patients }) {
  return html`<section class="appointments-print" aria-hidden="true">
    <h2>${title}</h2>
    <ol>
      ${appointments.map((appointment) => {
        const patient = patients.get(appointment.patientId);
        return html`<li key=${appointment.id}>
          <span class="print-time"
            >${`${shortDay(new Date(appointment.startAt))} ${timeLabel(new Date(appointment.startAt))}–${timeLabel(
              new Date(appointment.endAt),
            )}`}</span
          >
          ${' '}${patient ? t('print.patient', { name: patientName(patient), mrn: patient.mrn }) : t('patientNumber', { id: appointment.patientId })}
          ${' · '}${appointment.practitionerName || t('list.noPractitioner')}
          ${appointment.reason ? ` · ${appointment.reason}` : ''} ${' · '}${statusLabel(appointment.status)}
        </li>`;
      })}
    </ol>
  </section>`;
}

/**
 * The server's words at the start and end fields are this layer's own check (an appointment ends
 * after it starts), said in English: the form says them in the user's language instead.
 */
const TIME_CHECKS = {
  'must be after startAt': 'form.endAfterStart',
  'must be before the appointment ends': 'form.startBeforeEnd',
};

/** fieldErrors, with the end-after-start check in the catalogue's words. */
function timeFieldErrors(caught) {
  const fields = fieldErrors(caught);
  for (const [pointer, message] of Object.entries(fields))
    if (Object.hasOwn(TIME_CHECKS, message)) fields[pointer] = t(TIME_CHECKS[message]);
  return fields;
}

/** What the list shows as its address: only what differs from the defaults. */
function listAddress({ day, view, practitioner, patientId }) {
  const params = new URLSearchParams({ date: day });
  if (view === 'week') params.set('view', 'week');
  if (practitioner !== '') params.set('practitioner', practitioner);
  if (patientId !== null) params.set('patient', String(patientId));
  return `/appointments?${params}`;
}

function AppointmentList({ context }) {
  const today = isoDate(new Date());
  const [day, setDay] = useState(VALID_DAY.test(context.query.date ?? '') ? context.query.date : today);
  const [view, setView] = useState(context.query.view === 'week' ? 'week' : 'day');
  const [practitioner, setPractitioner] = useState(idFrom(context.query.practitioner));
  const [patientId, setPatientId] = useState(() => {
    const id = Number(context.query.patient);
    return Number.isInteger(id) && id > 0 ? id : null;
  });
  const [patient, setPatient] = useState(null);
  const [loaded, setLoaded] = useState(null);
  const [error, setError] = useState(null);
  const staff = usePractitioners(context);
  const range = rangeOf(day, view);

  const choosePatient = (chosen) => {
    setPatient(chosen);
    setPatientId(chosen?.id ?? null);
  };

  // The address follows what is shown (replaced, not pushed: Back leaves the page, as a person expects).
  useEffect(() => {
    const address = listAddress({ day, view, practitioner, patientId });
    if (`${location.pathname}${location.search}` !== address)
      history.replaceState(history.state, '', address);
  }, [day, view, practitioner, patientId]);

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

  const chosen = staff.practitioners.find((entry) => String(entry.id) === practitioner) ?? null;
  const shown = loaded
    ? loaded.appointments.filter(
        (appointment) => practitioner === '' || String(appointment.practitionerId) === practitioner,
      )
    : [];

  const move = (direction) => setDay(isoDate(addDays(midnight(day), direction * (view === 'day' ? 1 : 7))));
  const period =
    view === 'day'
      ? dayLabel(range.from)
      : t('list.weekOf', { from: dayLabel(range.from), to: dayLabel(addDays(range.to, -1)) });
  const practitionerLabel =
    chosen?.name ?? (practitioner === '' ? null : t('list.practitionerNumber', { id: practitioner }));
  const who = [
    practitionerLabel === null ? null : t('list.with', { practitioner: practitionerLabel }),
    patientId === null || patient === null ? null : t('list.for', { patient: patientName(patient) }),
  ]
    .filter(Boolean)
    .join(' ');
  const when = t(view === 'day' ? 'list.onDay' : 'list.inWeek', { day: dayLabel(range.from) });
  const caption = t('list.caption', { details: [who, when].filter(Boolean).join(' ') });

  // Day: a column per practitioner (the chosen one, or each with appointments that day). Week: a column per day.
  const columns =
    view === 'day'
      ? (practitioner !== ''
          ? [{ id: Number(practitioner), name: practitionerLabel }]
          : [
              ...new Map(
                shown.map((appointment) => [
                  appointment.practitionerId,
                  {
                    id: appointment.practitionerId,
                    name: appointment.practitionerName || t('list.noPractitioner'),
                  },
                ]),
              ).values(),
            ].sort((a, b) => a.name.localeCompare(b.name))
        ).map((entry) => ({
          key: String(entry.id),
          label: entry.name,
          holds: (appointment) => appointment.practitionerId === entry.id,
        }))
      : Array.from({ length: 7 }, (_, index) => {
          const date = addDays(range.from, index);
          return {
            key: isoDate(date),
            label: shortDay(date),
            holds: (appointment) => isoDate(new Date(appointment.startAt)) === isoDate(date),
          };
        });

  return html`<${PageHeader}
      title=${t('title')}
      description=${period}
      actions=${
        context.can(WRITE) &&
        html`<${ButtonLink}
          href=${`/appointments/new?${new URLSearchParams({ date: day, ...(practitioner === '' ? {} : { practitioner }) })}`}
          >${t('new')}<//
        >`
      }
    />
    <form
      class="form appointments-controls"
      aria-label=${t('list.which')}
      onSubmit=${(event) => event.preventDefault()}
    >
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
            ...staff.practitioners.map((entry) => ({ value: String(entry.id), label: entry.name })),
            ...(practitioner !== '' && chosen === null
              ? [{ value: practitioner, label: practitionerLabel }]
              : []),
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
          html`<${Button} variant="secondary" onClick=${() => choosePatient(null)}
            >${t('list.allPatients')}<//
          >`
        }
        <${Button} variant="secondary" onClick=${() => window.print()}>${t('list.print')}<//>
      </div>
    </form>
    ${staff.error && html`<${ErrorBanner} title=${t('practitioners.unreadable')} error=${staff.error} />`}
    ${error && html`<${ErrorBanner} error=${error} />`}
    ${!error && loaded === null && html`<${Loading} label=${t('loading')} />`}
    ${
      !error &&
      loaded !== null &&
      (shown.length === 0 && (view === 'week' || practitioner === '')
        ? html`<${EmptyState}
            title=${t('list.empty', {
              details: [who, t(view === 'day' ? 'list.thisDay' : 'list.thisWeek')].filter(Boolean).join(' '),
            })}
          >
            ${context.can(WRITE) && html`<p><a href="/appointments/new">${t('book')}</a>.</p>`}
          <//>`
        : html`<${Grid}
              caption=${caption}
              columns=${columns}
              appointments=${shown}
              patients=${loaded.patients}
              showPractitioner=${view === 'week' && practitioner === ''}
            />
            <${PrintList} title=${caption} appointments=${shown} patients=${loaded.patients} />`)
    }`;
}

/** `date` (YYYY-MM-DD) and `time` (HH:MM) in local time as an RFC 3339 instant; undefined if either is missing. */
const instantOf = (date, time) =>
  VALID_DAY.test(date) && /^\d{2}:\d{2}/.test(time) ? new Date(`${date}T${time}`).toISOString() : undefined;

/**
 * The practitioner is busy at that time: the server's sentence names the other appointment's time,
 * said here in the person's words; holders of the overbook permission may book anyway.
 */
function BusyBanner({ context, error, onOverbook, busy }) {
  const other = /from (\S+) to (\S+) \(appointment (\d+)\)/.exec(error.message);
  const when = other
    ? `${dayLabel(new Date(other[1]))}, ${timeLabel(new Date(other[1]))}–${timeLabel(new Date(other[2]))}`
    : null;
  const mayOverbook = context.can(OVERBOOK);
  return html`<${Banner}
    kind="warning"
    title=${t('busy.title')}
    action=${mayOverbook && html`<${Button} variant="secondary" busy=${busy} onClick=${onOverbook}>${t('busy.overbook')}<//>`}
  >
    <p>
      ${
        other
          ? html`${t('busy.before')}<a href=${`/appointments/${other[3]}`}>${t('busy.link', { when })}</a
              >${t('busy.after')}`
          : error.message
      }
    </p>
    <p>${mayOverbook ? t('busy.hintOverbook') : t('busy.hint')}</p>
  <//>`;
}

const isBusy = (error) => error?.code === 'practitioner_busy';

/**
 * The practitioners as a select's options, the first asking to choose: the active ones, and
 * `keep` (the one an appointment has) even when inactive, so its form still shows who it is.
 */
const practitionerOptions = (practitioners, loaded, keep = null) => [
  { value: '', label: loaded ? t('practitioners.choose') : t('practitioners.loading') },
  ...practitioners
    .filter((entry) => entry.active || entry.id === keep)
    .map((entry) => ({
      value: String(entry.id),
      label: entry.active ? entry.name : t('practitioners.inactive', { name: entry.name }),
    })),
];

function NewAppointment({ context }) {
  const [patient, setPatient] = useState(null);
  const staff = usePractitioners(context);
  const [values, setValues] = useState({
    practitionerId: idFrom(context.query.practitioner),
    date: VALID_DAY.test(context.query.date ?? '') ? context.query.date : isoDate(new Date()),
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

  const book = async (overbook) => {
    setErrors({});
    setError(null);
    // Every required field left empty is said at once, before anything is sent; the server would
    // name only the first.
    const local = missingFields({ ...values, patientId: patient }, [
      'patientId',
      'practitionerId',
      'date',
      'startAt',
      'endAt',
    ]);
    if (local['/patientId'] !== undefined) local['/patientId'] = t('new.choosePatient');
    if (local['/practitionerId'] !== undefined) local['/practitionerId'] = t('new.choosePractitioner');
    if (local['/date'] === undefined && !VALID_DAY.test(values.date)) local['/date'] = t('new.chooseDay');
    if (Object.keys(local).length > 0) {
      setErrors(local);
      focusFirst(local);
      return;
    }
    const body = {
      practitionerId: Number(values.practitionerId),
      status: values.status,
      reason: values.reason.trim() === '' ? null : values.reason.trim(),
    };
    if (overbook) body.overbook = true;
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
      const fields = timeFieldErrors(caught);
      setErrors(fields);
      setError(caught);
      setBusy(false);
      if (!isBusy(caught)) focusFirst(fields);
    }
  };

  const submit = (event) => {
    event.preventDefault();
    return book(false);
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
      ${
        error &&
        (isBusy(error)
          ? html`<${BusyBanner}
              context=${context}
              error=${error}
              busy=${busy}
              onOverbook=${() => book(true)}
            />`
          : html`<${ErrorBanner} title=${t('new.notBooked')} error=${error} />`)
      }
      ${staff.error && html`<${ErrorBanner} title=${t('practitioners.unreadable')} error=${staff.error} />`}
      <${PatientPicker}
        context=${context}
        label=${t('patient')}
        patient=${patient}
        onChoose=${setPatient}
        error=${errors['/patientId']}
        nextFocus="field-practitionerId"
        required
      />
      <div class="form-grid">
        ${field('practitionerId', t('practitioner'), {
          required: true,
          options: practitionerOptions(staff.practitioners, staff.loaded),
        })}
        ${field('date', t('date'), { type: 'date', required: true })}
        ${field('startAt', t('startTime'), { type: 'time', required: true })}
        ${field('endAt', t('endTime'), { type: 'time', required: true })}
        ${field('status', t('status'), { options: STATUSES.filter((status) => status.value !== 'cancelled') })}
        ${field('reason', t('reason'), { autocomplete: 'off' })}
      </div>
      <div class="form-actions">
        <${Button} type="submit" busy=${busy}>${t('new.submit')}<//>
        <${ButtonLink} variant="secondary" href="/appointments">${t('new.cancel')}<//>
      </div>
    </form>`;
}

/** `HH:MM` of an instant, in local time, what `<input type="time">` holds. */
const clockOf = (date) => `${pad(date.getHours())}:${pad(date.getMinutes())}`;

/** Move an appointment to another day, time or practitioner: the same busy check as a booking. */
function Reschedule({ context, appointment, practitioners, onSaved }) {
  const start = new Date(appointment.startAt);
  const [values, setValues] = useState({
    date: isoDate(start),
    startAt: clockOf(start),
    endAt: clockOf(new Date(appointment.endAt)),
    practitionerId: appointment.practitionerId === null ? '' : String(appointment.practitionerId),
  });
  const [errors, setErrors] = useState({});
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const set = (key) => (value) => setValues({ ...values, [key]: value });

  const move = async (overbook) => {
    setErrors({});
    setError(null);
    const local = missingFields(values, ['practitionerId', 'date', 'startAt', 'endAt']);
    if (local['/practitionerId'] !== undefined) local['/practitionerId'] = t('new.choosePractitioner');
    if (Object.keys(local).length > 0) {
      setErrors(local);
      document.getElementById(`field-move-${Object.keys(local)[0].slice(1)}`)?.focus();
      return;
    }
    const body = {
      startAt: instantOf(values.date, values.startAt),
      endAt: instantOf(values.date, values.endAt),
      practitionerId: Number(values.practitionerId),
    };
    if (overbook) body.overbook = true;
    setBusy(true);
    try {
      onSaved(await context.api.patch(`${API}/${appointment.id}`, body), t('move.done'));
    } catch (caught) {
      setErrors(timeFieldErrors(caught));
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const field = (key, label, extra = {}) =>
    html`<${Field}
      id=${`field-move-${key}`}
      label=${label}
      name=${key}
      value=${values[key]}
      onInput=${set(key)}
      error=${errors[`/${key}`]}
      required
      ...${extra}
    />`;

  return html`<form
    class="form"
    aria-labelledby="reschedule-title"
    onSubmit=${(event) => {
      event.preventDefault();
      move(false);
    }}
    novalidate
  >
    <h2 id="reschedule-title">${t('move.title')}</h2>
    ${
      error &&
      (isBusy(error)
        ? html`<${BusyBanner}
            context=${context}
            error=${error}
            busy=${busy}
            onOverbook=${() => move(true)}
          />`
        : html`<${ErrorBanner} title=${t('move.failed')} error=${error} />`)
    }
    <div class="form-grid">
      ${field('practitionerId', t('practitioner'), { options: practitionerOptions(practitioners, true, appointment.practitionerId) })}
      ${field('date', t('date'), { type: 'date' })} ${field('startAt', t('startTime'), { type: 'time' })}
      ${field('endAt', t('endTime'), { type: 'time' })}
    </div>
    <div class="form-actions"><${Button} type="submit" busy=${busy}>${t('move.submit')}<//></div>
  </form>`;
}

/** Cancel with the reason, which the server requires. */
function Cancel({ context, appointment, onSaved }) {
  const [reason, setReason] = useState('');
  const [fieldError, setFieldError] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const cancel = async (event) => {
    event.preventDefault();
    setError(null);
    setFieldError(null);
    if (reason.trim() === '') {
      setFieldError(t('cancel.reasonMissing'));
      document.getElementById('field-cancellationReason')?.focus();
      return;
    }
    setBusy(true);
    try {
      onSaved(
        await context.api.patch(`${API}/${appointment.id}`, {
          status: 'cancelled',
          cancellationReason: reason.trim(),
        }),
        t('cancel.done'),
      );
    } catch (caught) {
      setError(caught);
      setFieldError(fieldErrors(caught)['/cancellationReason'] ?? null);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="form" aria-labelledby="cancel-title" onSubmit=${cancel} novalidate>
    <h2 id="cancel-title">${t('cancel.title')}</h2>
    ${error && html`<${ErrorBanner} title=${t('cancel.failed')} error=${error} />`}
    <div class="search">
      <${Field}
        label=${t('detail.cancellationReason')}
        name="cancellationReason"
        value=${reason}
        onInput=${setReason}
        error=${fieldError}
        required
        autocomplete="off"
      />
      <${Button} type="submit" variant="secondary" busy=${busy}>${t('cancel.title')}<//>
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
  const staff = usePractitioners(context);

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
  // Cancelling has its own form, which asks for the reason.
  const statuses = [
    ...STATUSES.filter((known) => known.value !== 'cancelled' || appointment.status === 'cancelled'),
    ...(STATUSES.some((known) => known.value === appointment.status)
      ? []
      : [{ value: appointment.status, label: appointment.status }]),
  ];
  const released = appointment.status === 'cancelled' || appointment.status === 'noshow';

  const saved = (next, message) => {
    setAppointment(next);
    setStatus(next.status);
    setNotice(message);
    /** @type {HTMLElement | null} */ (document.querySelector('.banner-success'))?.focus();
  };

  const changeStatus = async (next) => {
    setBusy(true);
    setSaveError(null);
    setNotice(null);
    try {
      const changed = await context.api.patch(`${API}/${appointment.id}`, { status: next });
      saved(changed, t('detail.statusNow', { status: statusLabel(changed.status) }));
    } catch (caught) {
      setSaveError(caught);
      document.getElementById('field-status')?.focus();
    } finally {
      setBusy(false);
    }
  };

  const save = (event) => {
    event.preventDefault();
    if (status !== appointment.status) changeStatus(status);
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
    ...(appointment.cancellationReason
      ? [[t('detail.cancellationReason'), appointment.cancellationReason]]
      : []),
    ...(appointment.overbooked ? [[t('detail.overbooked'), t('detail.overbookedYes')]] : []),
  ];
  const day = isoDate(start);
  const practitionerDay =
    appointment.practitionerId === null
      ? null
      : `/appointments?date=${day}&practitioner=${appointment.practitionerId}`;

  return html`<${PageHeader}
      title=${t('detail.heading', { day: dayLabel(start), time: timeLabel(start) })}
      description=${patient ? t('detail.description', { patient: patientName(patient), practitioner: appointment.practitionerName || t('list.noPractitionerLower') }) : ''}
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
            ${
              !released &&
              html`<${Button} variant="secondary" busy=${busy} onClick=${() => changeStatus('noshow')}
                >${t('detail.noShow')}<//
              >`
            }
          </div>
        </form>
        ${
          !released &&
          html`<${Reschedule}
              key=${`${appointment.id}-${appointment.updatedAt}`}
              context=${context}
              appointment=${appointment}
              practitioners=${staff.practitioners}
              onSaved=${saved}
            />
            <${Cancel} context=${context} appointment=${appointment} onSaved=${saved} />`
        }`
    }
    <p>
      <a href=${`/appointments?date=${day}&patient=${appointment.patientId}`}>${t('detail.patientDay')}</a
      >${practitionerDay && html`${SEPARATOR}<a href=${practitionerDay}>${t('detail.practitionerDay')}</a>`}${SEPARATOR}<a
        href="/appointments"
        >${t('detail.back')}</a
      >
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

/**
 * The start page's `home.today` part: today's appointments of the signed-in practitioner when the
 * user is linked to one, otherwise the clinic's, every practitioner's.
 */
function TodayAppointments({ context }) {
  const [loaded, setLoaded] = useState(null);
  const [error, setError] = useState(null);
  const today = isoDate(new Date());

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    context.api
      .get(`${PRACTITIONERS}/me`, { signal })
      .catch((caught) => {
        if (caught.status === 404) return null;
        throw caught;
      })
      .then(async (mine) => {
        const all = await appointmentsIn(context.api, { ...rangeOf(today, 'day'), patientId: null }, signal);
        const appointments =
          mine === null ? all : all.filter((appointment) => appointment.practitionerId === mine.id);
        return { mine, appointments, patients: await patientsOf(context.api, appointments, signal) };
      })
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
    ...(loaded?.mine
      ? []
      : [
          {
            key: 'practitionerName',
            label: t('practitioner'),
            render: (appointment) => appointment.practitionerName || '—',
          },
        ]),
    { key: 'status', label: t('status'), render: (appointment) => statusLabel(appointment.status) },
  ];
  const title = loaded?.mine ? t('today.titleMine', { practitioner: loaded.mine.name }) : t('today.title');
  const dayLink = loaded?.mine
    ? `/appointments?date=${today}&practitioner=${loaded.mine.id}`
    : `/appointments?date=${today}`;

  return html`<section aria-labelledby="today-appointments-title">
    <h2 id="today-appointments-title">${title}</h2>
    ${error && html`<${ErrorBanner} title=${t('today.unreadable')} error=${error} />`}
    ${!error && loaded === null && html`<${Loading} label=${t('today.loading')} />`}
    ${
      !error &&
      loaded !== null &&
      (loaded.appointments.length === 0
        ? html`<p>${t('today.empty')}</p>`
        : html`<${Table}
            caption=${loaded.mine ? t('today.captionMine', { practitioner: loaded.mine.name, day: dayLabel(midnight(today)) }) : t('today.caption', { day: dayLabel(midnight(today)) })}
            columns=${columns}
            rows=${loaded.appointments}
          />`)
    }
    <p><a href=${dayLink}>${t('today.open')}</a></p>
  </section>`;
}

export default /** @satisfies {import('@ward/ui').Layer} */ ({
  sdk: '^1.4.0',
  messages,
  routes: [
    { path: '/appointments', render: mount(AppointmentList) },
    { path: '/appointments/new', render: mount(NewAppointment) },
    { path: '/appointments/practitioners', render: mount(PractitionersPage) },
    { path: '/appointments/:id', render: mount(AppointmentDetail) },
  ],
  extensions: [
    { slot: 'patient.chart', component: ChartAppointments, permission: READ, order: 10 },
    { slot: 'home.today', component: TodayAppointments, permission: READ },
  ],
});
