/**
 * Staff administration, for holders of base.user.manage: `/users` lists everyone and creates a
 * user with a temporary password (the person chooses their own at first sign-in); `/users/<name>`
 * manages one person: roles, disable and enable, a password reset, their two-factor sign-in and
 * their API tokens. Each action says what it did, or why it was refused.
 */
import { useEffect, useState } from 'preact/hooks';
import {
  Banner,
  Button,
  ErrorBanner,
  Field,
  fieldErrors,
  html,
  Loading,
  missingFields,
  mount,
  PageHeader,
  Table,
} from '@ward/ui';

const SECTION = { marginTop: '2rem' };
const time = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

function stateOf(user) {
  if (user.disabled) return 'Disabled';
  if (!user.hasPassword) return 'Service account (API tokens only)';
  if (user.mustChangePassword) return 'Must choose a password';
  return 'Active';
}

/** GETs `path` again whenever `version` changes: `{data, error}`. */
function useRead(context, path, version) {
  const [state, setState] = useState({ data: null, error: null });
  useEffect(() => {
    context.api.get(path).then(
      (data) => setState({ data, error: null }),
      (error) => setState({ data: null, error }),
    );
  }, [path, version]);
  return state;
}

function UsersPage({ context }) {
  const [version, setVersion] = useState(0);
  const read = useRead(context, '/users', version);
  return html`<${PageHeader}
      title="Staff"
      description="Everyone who can sign in to Ward, and service accounts."
    />
    ${read.error && html`<${ErrorBanner} title="The staff list could not be loaded" error=${read.error} />`}
    ${read.data === null && !read.error && html`<${Loading} label="Loading staff…" />`}
    ${
      read.data &&
      html`<${Table}
        caption="Staff"
        rowKey=${(user) => user.username}
        rows=${read.data.users}
        columns=${[
          {
            key: 'username',
            label: 'Username',
            render: (user) => html`<a href=${`/users/${user.username}`}>${user.username}</a>`,
          },
          { key: 'roles', label: 'Roles', render: (user) => user.roles.join(', ') || '—' },
          { key: 'state', label: 'State', render: stateOf },
          { key: 'twoFactor', label: 'Two-factor', render: (user) => (user.twoFactor ? 'On' : 'Off') },
        ]}
      />`
    }
    ${read.data && html`<${CreateUser} context=${context} roles=${read.data.roles} onCreated=${() => setVersion(version + 1)} />`}`;
}

function CreateUser({ context, roles, onCreated }) {
  const [username, setUsername] = useState('');
  const [role, setRole] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState(null);
  const [errors, setErrors] = useState({});
  const [done, setDone] = useState(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    setDone(null);
    const missing = missingFields({ username, temporaryPassword: password }, [
      'username',
      'temporaryPassword',
    ]);
    setErrors(missing);
    if (Object.keys(missing).length > 0) {
      document.getElementById(`field-${Object.keys(missing)[0].slice(1)}`)?.focus();
      return;
    }
    setBusy(true);
    try {
      await context.api.post('/users', {
        username,
        roles: role === '' ? [] : [role],
        temporaryPassword: password,
      });
      setDone(username);
      setUsername('');
      setPassword('');
      setRole('');
      onCreated();
    } catch (caught) {
      setError(caught);
      setErrors(fieldErrors(caught));
    }
    setBusy(false);
  };
  return html`<section aria-labelledby="create-title" style=${SECTION}>
    <h2 id="create-title">Add a person</h2>
    ${
      done &&
      html`<${Banner} kind="success"
        ><p>Created ${done}. Give them the temporary password: they choose their own at first sign-in.</p><//
      >`
    }
    ${error && html`<${ErrorBanner} title="The user was not created" error=${error} />`}
    <form class="form" onSubmit=${submit} novalidate>
      <${Field}
        label="Username"
        name="username"
        autocapitalize="none"
        autocomplete="off"
        hint="Lowercase letters, digits and . _ @ + -"
        required
        error=${errors['/username']}
        value=${username}
        onInput=${setUsername}
      />
      <${Field}
        label="Role"
        name="role"
        value=${role}
        onInput=${setRole}
        options=${[{ value: '', label: 'No role' }, ...roles.map((name) => ({ value: name, label: name }))]}
      />
      <${Field}
        label="Temporary password"
        name="temporaryPassword"
        type="password"
        autocomplete="new-password"
        hint="At least 12 characters, not a common password. The person must replace it when they first sign in."
        required
        error=${errors['/temporaryPassword']}
        value=${password}
        onInput=${setPassword}
      />
      <${Button} type="submit" busy=${busy}>Add person<//>
    </form>
  </section>`;
}

/** One button that POSTs (or DELETEs) and reports; `then` reloads the page's data. */
function useAction(context, then) {
  const [result, setResult] = useState(null);
  const run = async (label, method, path, body) => {
    setResult(null);
    try {
      await context.api.request(method, path, body);
      setResult({ ok: label });
      then();
    } catch (error) {
      setResult({ error, label });
    }
  };
  const banner =
    result === null
      ? null
      : result.ok
        ? html`<${Banner} kind="success"><p>${result.ok}</p><//>`
        : html`<${ErrorBanner} title=${`Not done: ${result.label}`} error=${result.error} />`;
  return { run, banner };
}

function UserPage({ context }) {
  const name = context.params.username;
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((value) => value + 1);
  const list = useRead(context, '/users', version);
  const tokens = useRead(context, `/users/${encodeURIComponent(name)}/tokens`, version);
  const { run, banner } = useAction(context, reload);
  const [role, setRole] = useState('');
  const [password, setPassword] = useState('');
  const user = list.data?.users.find((candidate) => candidate.username === name) ?? null;
  const base = `/users/${encodeURIComponent(name)}`;
  if (list.error) return html`<${PageHeader} title=${name} /><${ErrorBanner} error=${list.error} />`;
  if (list.data === null) return html`<${PageHeader} title=${name} /><${Loading} />`;
  if (user === null)
    return html`<${PageHeader} title=${name} />
      <${Banner} kind="warning" title=${`There is no user ${name}`}
        ><p><a href="/users">Back to staff</a></p><//
      >`;
  const addable = list.data.roles.filter((candidate) => !user.roles.includes(candidate));
  return html`<${PageHeader} title=${user.username} description=${stateOf(user)} />
    <div aria-live="polite">${banner}</div>
    <section aria-labelledby="roles-title" style=${SECTION}>
      <h2 id="roles-title">Roles</h2>
      <ul>
        ${user.roles.map(
          (held) =>
            html`<li key=${held}>
              ${held}
              <${Button}
                variant="secondary"
                aria-label=${`Remove role ${held}`}
                onClick=${() => run(`Removed role ${held}.`, 'DELETE', `${base}/roles/${held}`)}
                >Remove<//
              >
            </li>`,
        )}
      </ul>
      ${
        addable.length > 0 &&
        html`<form
          class="form"
          onSubmit=${(event) => {
            event.preventDefault();
            if (role !== '') void run(`Granted role ${role}.`, 'POST', `${base}/roles`, { role });
          }}
        >
          <${Field}
            label="Role to add"
            name="addRole"
            value=${role}
            onInput=${setRole}
            options=${[{ value: '', label: 'Choose a role' }, ...addable.map((r) => ({ value: r, label: r }))]}
          />
          <${Button} type="submit">Add role<//>
        </form>`
      }
    </section>
    <section aria-labelledby="access-title" style=${SECTION}>
      <h2 id="access-title">Access</h2>
      <p>Disabling ends ${user.username}'s sessions and revokes their API tokens at once.</p>
      ${
        user.disabled
          ? html`<${Button} onClick=${() => run(`Enabled ${user.username}.`, 'POST', `${base}/enable`)}
              >Enable<//
            >`
          : html`<${Button}
              variant="secondary"
              onClick=${() => run(`Disabled ${user.username}.`, 'POST', `${base}/disable`)}
              >Disable<//
            >`
      }
      <p>Two-factor sign-in: ${user.twoFactor ? 'on' : 'off'}.</p>
      ${
        user.twoFactor &&
        html`<${Button}
          variant="secondary"
          onClick=${() => run('Two-factor sign-in turned off.', 'POST', `${base}/two-factor/disable`)}
          >Turn off two-factor sign-in (lost phone)<//
        >`
      }
    </section>
    <section aria-labelledby="reset-title" style=${SECTION}>
      <h2 id="reset-title">Reset the password</h2>
      <form
        class="form"
        novalidate
        onSubmit=${(event) => {
          event.preventDefault();
          if (password === '') return;
          void run(
            `Password of ${user.username} reset: they must choose their own at next sign-in.`,
            'POST',
            `${base}/password`,
            {
              temporaryPassword: password,
            },
          ).then(() => setPassword(''));
        }}
      >
        <${Field}
          label="Temporary password"
          name="resetPassword"
          type="password"
          autocomplete="new-password"
          hint="Ends their sessions and revokes their API tokens; they must replace it at next sign-in."
          value=${password}
          onInput=${setPassword}
        />
        <${Button} type="submit">Reset password<//>
      </form>
    </section>
    <section aria-labelledby="tokens-title" style=${SECTION}>
      <h2 id="tokens-title">API tokens</h2>
      ${tokens.error && html`<${ErrorBanner} error=${tokens.error} />`}
      ${
        tokens.data &&
        (tokens.data.tokens.length === 0
          ? html`<p>None.</p>`
          : html`<${Table}
              caption="API tokens"
              rows=${tokens.data.tokens}
              columns=${[
                { key: 'id', label: 'Id' },
                { key: 'name', label: 'Name', render: (token) => token.name ?? '—' },
                { key: 'role', label: 'Role', render: (token) => token.role ?? 'all roles' },
                { key: 'status', label: 'Status' },
                { key: 'lastUsedAt', label: 'Last used', render: (token) => time(token.lastUsedAt) },
                {
                  key: 'revoke',
                  label: 'Revoke',
                  render: (token) =>
                    token.status === 'active'
                      ? html`<${Button}
                          variant="secondary"
                          aria-label=${`Revoke token ${token.id}`}
                          onClick=${() => run(`Revoked token ${token.id}.`, 'POST', `${base}/tokens/${token.id}/revoke`)}
                          >Revoke<//
                        >`
                      : '—',
                },
              ]}
            />`)
      }
    </section>
    <p style=${SECTION}><a href="/users">Back to staff</a></p>`;
}

export const userRoutes = [
  { path: '/users', render: mount(UsersPage) },
  { path: '/users/:username', render: mount(UserPage) },
];
