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
  translator,
} from '@ward/ui';
import messages from './messages.js';

/** This layer's words in the language in use. */
const t = translator(messages);

const PRACTITIONERS = '/appointments/practitioners';
const STAFF = '/appointments/staff';
const PAGE = '/appointments/practitioners';
export const MANAGE = 'appointments.practitioner.write';

/** The status choices, in the language in use when the form is drawn. */
const states = () => [
  { value: 'active', label: t('admin.active') },
  { value: 'inactive', label: t('admin.inactive') },
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
  { value: '', label: t('admin.nobody') },
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
    ${field('name', t('admin.name'), { required: true, autocomplete: 'off', hint: t('admin.nameHint') })}
    ${field('specialty', t('admin.specialty'), { autocomplete: 'off' })}
    ${field('userId', t('admin.signsInAs'), {
      options: userOptions(staff, practitionerId),
      hint: t('admin.signsInAsHint'),
    })}
    ${
      withState &&
      field('state', t('status'), {
        options: states(),
        hint: t('admin.statusHint'),
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
    <h2 id="add-practitioner-title">${t('admin.addTitle')}</h2>
    <form class="form" onSubmit=${submit} novalidate>
      ${form.error && html`<${ErrorBanner} title=${t('admin.notAdded')} error=${form.error} />`}
      <${PractitionerFields} form=${form} idPrefix="add" staff=${staff} practitionerId=${null} />
      <div class="form-actions"><${Button} type="submit" busy=${form.busy}>${t('admin.add')}<//></div>
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
      title=${t('admin.editTitle', { name: practitioner.name })}
      description=${t('admin.editDescription')}
    />
    <form class="form" onSubmit=${submit} novalidate>
      ${form.error && html`<${ErrorBanner} title=${t('admin.notChanged')} error=${form.error} />`}
      ${
        inUse &&
        html`<${Banner}
          kind="warning"
          title=${t('admin.inUse', { name: practitioner.name })}
          action=${
            practitioner.active &&
            html`<${Button} variant="danger" busy=${deleting} onClick=${deactivate}
              >${t('admin.deactivate')}<//
            >`
          }
        >
          <p>${practitioner.active ? t('admin.inUseActive') : t('admin.inUseInactive')}</p>
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
        <${Button} type="submit" busy=${form.busy}>${t('admin.save')}<//>
        <${ButtonLink} variant="secondary" href=${PAGE}>${t('new.cancel')}<//>
        <${Button} variant="danger" busy=${deleting} onClick=${remove}>${t('admin.delete')}<//>
      </div>
    </form>`;
}

/** What the last action did, from the address it left (`?saved=<id>`, `?deleted=1`, …). */
function doneMessage(query, practitioners) {
  const named = (key) => practitioners.find((entry) => entry.id === idOf(query[key]))?.name;
  if (named('saved')) return t('admin.saved', { name: named('saved') });
  if (named('deactivated')) return t('admin.deactivated', { name: named('deactivated') });
  if (query.deleted === '1') return t('admin.deleted');
  return null;
}

export function PractitionersPage({ context }) {
  const [version, setVersion] = useState(0);
  const [added, setAdded] = useState(null);
  const read = useDirectory(context, version);
  const editId = idOf(context.query.edit);

  if (!context.can(MANAGE))
    return html`<${PageHeader} title=${t('admin.title')} />
      <${Banner} kind="warning" title=${t('admin.deniedTitle')}>
        <p>${t('admin.denied', { permission: MANAGE })}</p>
      <//>`;
  if (read.error)
    return html`<${PageHeader} title=${t('admin.title')} />
      <${ErrorBanner} title=${t('practitioners.unreadable')} error=${read.error} />`;
  if (read.data === null)
    return html`<${PageHeader} title=${t('admin.title')} /><${Loading}
        label=${t('practitioners.loading')}
      />`;

  const { practitioners, staff } = read.data;
  if (editId !== null) {
    const practitioner = practitioners.find((entry) => entry.id === editId);
    return practitioner === undefined
      ? html`<${PageHeader} title=${t('admin.notFound')} />
          <${EmptyState} title=${t('admin.noSuch', { id: editId })}>
            <p><a href=${PAGE}>${t('list.allPractitioners')}</a></p>
          <//>`
      : html`<${EditPractitioner} context=${context} practitioner=${practitioner} staff=${staff} />`;
  }

  const usernames = new Map(staff.map((user) => [user.id, user.username]));
  const message = added ? t('admin.added', { name: added.name }) : doneMessage(context.query, practitioners);
  return html`<${PageHeader} title=${t('admin.title')} description=${t('admin.description')} />
    ${message && html`<${Banner} kind="success">${message}<//>`}
    ${
      practitioners.length === 0
        ? html`<${EmptyState} title=${t('admin.empty')}>
            <p>${t('admin.emptyHint')}</p>
          <//>`
        : html`<${Table}
            caption=${t('admin.title')}
            rows=${practitioners}
            columns=${[
              { key: 'name', label: t('admin.name') },
              { key: 'specialty', label: t('admin.specialty'), render: (row) => row.specialty ?? '—' },
              {
                key: 'userId',
                label: t('admin.signsInAs'),
                render: (row) =>
                  row.userId === null
                    ? '—'
                    : (usernames.get(row.userId) ?? t('admin.userNumber', { id: row.userId })),
              },
              {
                key: 'active',
                label: t('status'),
                render: (row) => (row.active ? t('admin.active') : t('admin.inactive')),
              },
              {
                key: 'edit',
                label: t('admin.actions'),
                render: (row) =>
                  html`<a
                    href=${`${PAGE}?edit=${row.id}`}
                    aria-label=${t('admin.editTitle', { name: row.name })}
                    >${t('admin.edit')}</a
                  >`,
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
