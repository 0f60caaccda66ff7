/**
 * Practitioner administration, for holders of appointments.practitioner.write, at
 * `/appointments/practitioners`: every practitioner with their specialty, the staff user who signs
 * in as them and whether they take bookings, and a form to add one. `?edit=<id>` edits one (in the
 * address, so Back leaves the form and a link opens it): name, specialty, the linked staff user,
 * active or inactive, and delete. A practitioner whom appointments name cannot be deleted (they
 * stay on those appointments); the page offers to deactivate them instead, which keeps them on
 * their appointments and out of new bookings.
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
  PageHeader,
  Table,
} from '@ward/ui';

const PRACTITIONERS = '/appointments/practitioners';
const STAFF = '/appointments/staff';
const PAGE = '/appointments/practitioners';
export const MANAGE = 'appointments.practitioner.write';

const STATES = [
  { value: 'active', label: 'Active' },
  { value: 'inactive', label: 'Inactive' },
];

/** An id from the address, or null. */
const idOf = (text) => (/^[1-9]\d*$/.test(text ?? '') ? Number(text) : null);

/** The practitioners and the staff users they may be linked to, read again when `version` changes. */
function useDirectory(context, version) {
  const [state, setState] = useState({ data: null, error: null });
  useEffect(() => {
    const controller = new AbortController();
    Promise.all([
      context.api.get(PRACTITIONERS, { signal: controller.signal }),
      context.api.get(STAFF, { signal: controller.signal }),
    ]).then(
      ([practitioners, staff]) =>
        setState({ data: { practitioners: practitioners.items, staff: staff.items }, error: null }),
      (error) => {
        if (error.name !== 'AbortError') setState({ data: null, error });
      },
    );
    return () => controller.abort();
  }, [version]);
  return state;
}

/** The "signs in as" choices: nobody, or a staff user not linked to another practitioner. */
const userOptions = (staff, practitionerId) => [
  { value: '', label: 'Nobody' },
  ...staff
    .filter((user) => user.practitionerId === null || user.practitionerId === practitionerId)
    .map((user) => ({ value: String(user.id), label: user.username })),
];

/** The request body of the form's values. */
const bodyOf = (values) => ({
  name: values.name.trim(),
  specialty: values.specialty.trim() === '' ? null : values.specialty.trim(),
  userId: values.userId === '' ? null : Number(values.userId),
});

/** Sends the form; field errors go to their fields, any other to the banner. */
function useForm(initial) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState({});
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const set = (key) => (value) => setValues({ ...values, [key]: value });
  const send = async (idPrefix, request) => {
    setErrors({});
    setError(null);
    const missing = missingFields(values, ['name']);
    if (Object.keys(missing).length > 0) {
      setErrors(missing);
      document.getElementById(`${idPrefix}-name`)?.focus();
      return;
    }
    setBusy(true);
    try {
      await request(bodyOf(values));
    } catch (caught) {
      const fields = fieldErrors(caught);
      setErrors(fields);
      setError(Object.keys(fields).length > 0 ? null : caught);
      const first = Object.keys(fields)[0];
      if (first !== undefined) document.getElementById(`${idPrefix}-${first.slice(1)}`)?.focus();
    } finally {
      setBusy(false);
    }
  };
  return { values, setValues, set, errors, error, setError, busy, send };
}

function PractitionerFields({ form, idPrefix, staff, practitionerId, withState }) {
  const field = (key, label, extra = {}) =>
    html`<${Field}
      id=${`${idPrefix}-${key}`}
      label=${label}
      name=${key}
      value=${form.values[key]}
      onInput=${form.set(key)}
      error=${form.errors[`/${key}`]}
      ...${extra}
    />`;
  return html`<div class="form-grid">
    ${field('name', 'Name', { required: true, autocomplete: 'off', hint: 'As patients and staff know them: "Dr. Mei Cho".' })}
    ${field('specialty', 'Specialty', { autocomplete: 'off' })}
    ${field('userId', 'Signs in as', {
      options: userOptions(staff, practitionerId),
      hint: 'The staff user who sees this practitioner’s day on the start page.',
    })}
    ${
      withState &&
      field('state', 'Status', {
        options: STATES,
        hint: 'An inactive practitioner keeps their appointments and takes no new ones.',
      })
    }
  </div>`;
}

function AddPractitioner({ context, staff, onAdded }) {
  const empty = { name: '', specialty: '', userId: '' };
  const form = useForm(empty);
  const submit = (event) => {
    event.preventDefault();
    return form.send('add', async (body) => {
      const created = await context.api.post(PRACTITIONERS, body);
      form.setValues(empty);
      onAdded(created);
    });
  };
  return html`<section class="practitioners-add" aria-labelledby="add-practitioner-title">
    <h2 id="add-practitioner-title">Add a practitioner</h2>
    <form class="form" onSubmit=${submit} novalidate>
      ${form.error && html`<${ErrorBanner} title="The practitioner was not added" error=${form.error} />`}
      <${PractitionerFields} form=${form} idPrefix="add" staff=${staff} practitionerId=${null} />
      <div class="form-actions"><${Button} type="submit" busy=${form.busy}>Add practitioner<//></div>
    </form>
  </section>`;
}

function EditPractitioner({ context, practitioner, staff }) {
  const form = useForm({
    name: practitioner.name,
    specialty: practitioner.specialty ?? '',
    userId: practitioner.userId === null ? '' : String(practitioner.userId),
    state: practitioner.active ? 'active' : 'inactive',
  });
  const [deleting, setDeleting] = useState(false);
  const [inUse, setInUse] = useState(false);
  // Replaced, not pushed: Back after saving returns to where the person was before editing.
  const done = (what) => context.navigate(`${PAGE}?${what}=${practitioner.id}`, true);

  const submit = (event) => {
    event.preventDefault();
    return form.send('edit', async (body) => {
      await context.api.patch(`${PRACTITIONERS}/${practitioner.id}`, {
        ...body,
        active: form.values.state === 'active',
      });
      done('saved');
    });
  };
  const remove = async () => {
    form.setError(null);
    setDeleting(true);
    try {
      await context.api.delete(`${PRACTITIONERS}/${practitioner.id}`);
      context.navigate(`${PAGE}?deleted=1`, true);
    } catch (caught) {
      if (caught.code === 'practitioner_has_appointments') setInUse(true);
      else form.setError(caught);
      setDeleting(false);
    }
  };
  const deactivate = async () => {
    setDeleting(true);
    try {
      await context.api.patch(`${PRACTITIONERS}/${practitioner.id}`, { active: false });
      done('deactivated');
    } catch (caught) {
      form.setError(caught);
      setDeleting(false);
    }
  };

  return html`<${PageHeader}
      title=${`Edit ${practitioner.name}`}
      description="Fields marked * are required. A new name shows on their appointments too."
    />
    <form class="form" onSubmit=${submit} novalidate>
      ${form.error && html`<${ErrorBanner} title="The practitioner was not changed" error=${form.error} />`}
      ${
        inUse &&
        html`<${Banner}
          kind="warning"
          title=${`${practitioner.name} has appointments and cannot be deleted`}
          action=${
            practitioner.active &&
            html`<${Button} variant="danger" busy=${deleting} onClick=${deactivate}>Deactivate instead<//>`
          }
        >
          <p>
            ${
              practitioner.active
                ? 'Deactivate them instead: they stay on their appointments and can no longer be booked.'
                : 'They are inactive already: they stay on their appointments and can no longer be booked.'
            }
          </p>
        <//>`
      }
      <${PractitionerFields}
        form=${form}
        idPrefix="edit"
        staff=${staff}
        practitionerId=${practitioner.id}
        withState
      />
      <div class="form-actions">
        <${Button} type="submit" busy=${form.busy}>Save changes<//>
        <${ButtonLink} variant="secondary" href=${PAGE}>Cancel<//>
        <${Button} variant="danger" busy=${deleting} onClick=${remove}>Delete practitioner<//>
      </div>
    </form>`;
}

/** What the last action did, from the address it left (`?saved=<id>`, `?deleted=1`, …). */
function doneMessage(query, practitioners) {
  const named = (key) => practitioners.find((entry) => entry.id === idOf(query[key]))?.name;
  if (named('saved')) return `${named('saved')} was saved.`;
  if (named('deactivated')) return `${named('deactivated')} was deactivated: they take no new bookings.`;
  if (query.deleted === '1') return 'The practitioner was deleted.';
  return null;
}

export function PractitionersPage({ context }) {
  const [version, setVersion] = useState(0);
  const [added, setAdded] = useState(null);
  const read = useDirectory(context, version);
  const editId = idOf(context.query.edit);

  if (!context.can(MANAGE))
    return html`<${PageHeader} title="Practitioners" />
      <${Banner} kind="warning" title="You cannot manage practitioners">
        <p>This page needs the permission ${MANAGE}; an administrator can grant it with a role.</p>
      <//>`;
  if (read.error)
    return html`<${PageHeader} title="Practitioners" />
      <${ErrorBanner} title="The practitioners could not be read" error=${read.error} />`;
  if (read.data === null)
    return html`<${PageHeader} title="Practitioners" /><${Loading} label="Loading practitioners…" />`;

  const { practitioners, staff } = read.data;
  if (editId !== null) {
    const practitioner = practitioners.find((entry) => entry.id === editId);
    return practitioner === undefined
      ? html`<${PageHeader} title="Practitioner not found" />
          <${EmptyState} title=${`There is no practitioner ${editId}.`}>
            <p><a href=${PAGE}>All practitioners</a></p>
          <//>`
      : html`<${EditPractitioner} context=${context} practitioner=${practitioner} staff=${staff} />`;
  }

  const usernames = new Map(staff.map((user) => [user.id, user.username]));
  const message = added ? `${added.name} was added.` : doneMessage(context.query, practitioners);
  return html`<${PageHeader}
      title="Practitioners"
      description="The people appointments are booked with. Inactive practitioners keep their appointments and take no new ones."
    />
    ${message && html`<${Banner} kind="success">${message}<//>`}
    ${
      practitioners.length === 0
        ? html`<${EmptyState} title="No practitioners yet.">
            <p>Add the first below; imports add those named in the old system.</p>
          <//>`
        : html`<${Table}
            caption="Practitioners"
            rows=${practitioners}
            columns=${[
              { key: 'name', label: 'Name' },
              { key: 'specialty', label: 'Specialty', render: (row) => row.specialty ?? '—' },
              {
                key: 'userId',
                label: 'Signs in as',
                render: (row) =>
                  row.userId === null ? '—' : (usernames.get(row.userId) ?? `user ${row.userId}`),
              },
              { key: 'active', label: 'Status', render: (row) => (row.active ? 'Active' : 'Inactive') },
              {
                key: 'edit',
                label: 'Actions',
                render: (row) =>
                  html`<a href=${`${PAGE}?edit=${row.id}`} aria-label=${`Edit ${row.name}`}>Edit</a>`,
              },
            ]}
          />`
    }
    <${AddPractitioner}
      context=${context}
      staff=${staff}
      onAdded=${(created) => {
        setAdded(created);
        setVersion(version + 1);
      }}
    />`;
}
